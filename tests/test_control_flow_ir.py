"""The shape of staged control flow in the IR (`agc build --emit ir`), and deep staged recursion at run time.

- a staged `while` is exactly one IR `while` op;
- a hyperparameter `if` (on an `@agc.export(..., flag=...)` argument) leaves no IR `if` op;
- a function whose recursion is decided by a staged value is a separate IR `func` holding a `call`;
- a recursion 100,000 levels deep returns the right value or an error status whose message
  mentions recursion/stack: it never takes the process down.
"""

import re
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import harness

WHILE_OP = re.compile(r"=\s*while\s")
IF_OP = re.compile(r"=\s*if\s")
CALL_OP = re.compile(r"=\s*call\s")
FUNC_HEADER = re.compile(r"^\s*func\s+@([\w.$-]+)\s*\(")


def build_ir(agc_bin, tmp_path, name, source):
    """Writes `source` as `<name>.py`, builds it with `--emit ir`, returns the IR text."""
    model = tmp_path / f"{name}.py"
    model.write_text(textwrap.dedent(source))
    out = tmp_path / "out"
    proc = harness.run_agc(agc_bin, "build", model, "-o", out, "--emit", "ir")
    assert proc.returncode == 0, f"agc build {model.name} failed:\n{proc.stderr}"
    ir = out / f"{name}.ir"
    assert ir.is_file(), f"--emit ir wrote no {ir.name}: {sorted(p.name for p in out.iterdir())}"
    return ir.read_text()


def functions(ir):
    """{function name: its text} of an IR module (each `func @name(` up to the next one)."""
    found, current = {}, None
    for line in ir.splitlines():
        m = FUNC_HEADER.match(line)
        if m:
            current = m.group(1)
            found[current] = []
        if current is not None:
            found[current].append(line)
    return {k: "\n".join(v) for k, v in found.items()}


def count(pattern, text):
    return sum(1 for line in text.splitlines() if pattern.search(line))


def test_cf_staged_while_is_one_while_op(agc_bin, tmp_path):
    ir = build_ir(agc_bin, tmp_path, "cf_ir_while", '''
        """A staged while."""
        import agc
        import agc.numpy as np


        @agc.export
        def halve(x: agc.f32[3], limit: agc.f32[()]):
            count = np.zeros((), dtype=np.int32)
            while np.sum(np.abs(x)) > limit:
                x = x * 0.5
                count = count + 1
            return x, count
        ''')
    assert count(WHILE_OP, ir) == 1, f"expected exactly one `= while` op:\n{ir}"


def test_cf_hyperparameter_if_leaves_no_if_op(agc_bin, tmp_path):
    ir = build_ir(agc_bin, tmp_path, "cf_ir_hyper_if", '''
        """Hyperparameter ifs only."""
        import agc
        import agc.numpy as np

        SCALE = 2.0


        @agc.export(name="train", training=True)
        @agc.export(name="infer", training=False)
        def predict(x: agc.f32["B", 4], w: agc.f32[4, 4], training=False):
            y = x @ w
            if training:
                y = y * 0.5
            else:
                y = np.maximum(y, 0)
            if SCALE > 1 and not training:
                y = y * SCALE
            z = y + 1 if training else y - 1
            return z
        ''')
    assert len(functions(ir)) >= 2, f"expected both specialisations in the IR:\n{ir}"
    assert count(IF_OP, ir) == 0, f"a hyperparameter `if` left an `if` op:\n{ir}"


def test_cf_staged_if_is_an_if_op(agc_bin, tmp_path):
    """The counterpart of the test above: the same `if` on a staged value is an `if` op."""
    ir = build_ir(agc_bin, tmp_path, "cf_ir_staged_if", '''
        """A staged if."""
        import agc
        import agc.numpy as np


        @agc.export
        def predict(x: agc.f32["B", 4], w: agc.f32[4, 4], training: agc.bool_[()]):
            y = x @ w
            if training:
                y = y * 0.5
            else:
                y = np.maximum(y, 0)
            return y
        ''')
    assert count(IF_OP, ir) >= 1, f"a staged `if` left no `if` op:\n{ir}"


def test_cf_staged_recursion_is_a_separate_function_with_a_call(agc_bin, tmp_path):
    ir = build_ir(agc_bin, tmp_path, "cf_ir_recursion", '''
        """A staged recursion."""
        import agc
        import agc.numpy as np


        def power(x, n):
            if n <= 0:
                return np.ones_like(x)
            return x * power(x, n - 1)


        @agc.export
        def staged_power(x: agc.f64[4], n: agc.i64[()]):
            return power(x, n)
        ''')
    funcs = functions(ir)
    assert "staged_power" in funcs, f"no `func @staged_power`:\n{ir}"
    recursive = [name for name, text in funcs.items() if name != "staged_power" and CALL_OP.search(text)]
    assert recursive, f"no function besides the export holds a `call`:\n{ir}"


LINKED_LIST_MODEL = '''
    """Recursion along a linked list: one level per element."""
    import agc
    import agc.numpy as np


    def list_sum(nxt, val, i):
        if i < 0:
            return np.zeros((), dtype=val.dtype)
        return val[i] + list_sum(nxt, val, nxt[i])


    @agc.export
    def total(nxt: agc.i64["N"], val: agc.f64["N"], head: agc.i64[()]):
        return list_sum(nxt, val, head)
    '''

# The child's address space is capped (RLIMIT_AS) so that a library that needs memory in proportion to
# depth x size (copying its tensor arguments at every level) fails inside the child instead of
# pushing the test machine into its OOM killer; a recursion of this depth itself needs far less.
ADDRESS_SPACE_LIMIT = 4 << 30

DEEP_CALLER = '''
import resource, sys, threading
limit = int(sys.argv[5])
resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
import numpy as np
sys.path.insert(0, sys.argv[1])
import agc

lib = agc.load(sys.argv[2])
n = int(sys.argv[3])
rng = np.random.default_rng(0)
order = rng.permutation(n)
nxt = -np.ones(n, dtype=np.int64)
nxt[order[:-1]] = order[1:]
val = rng.integers(-1000, 1000, size=n).astype(np.float64)   # integer values: every summation order is exact


def call():
    try:
        got = lib.total(nxt, val, np.int64(order[0]))
        print("VALUE", repr(float(got)), repr(float(val.sum())), flush=True)
    except agc.Error as e:
        print("ERROR", str(e).replace("\\n", " "), flush=True)


if sys.argv[4] == "thread":
    t = threading.Thread(target=call)
    t.start()
    t.join()
else:
    call()
'''


@pytest.mark.parametrize("where", ["main", "thread"])
def test_cf_recursion_depth_100000_never_crashes(agc_bin, tmp_path, where):
    model = tmp_path / "cf_deep_recursion.py"
    model.write_text(textwrap.dedent(LINKED_LIST_MODEL))
    so = harness.agc.build(model, tmp_path / "out")
    script = tmp_path / "deep.py"
    script.write_text(DEEP_CALLER)
    proc = subprocess.run([sys.executable, str(script), str(harness.REPO / "python"), str(so), "100000", where,
                           str(ADDRESS_SPACE_LIMIT)],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, (f"a recursion 100000 deep took the process down (exit code {proc.returncode}, "
                                  f"signal {-proc.returncode if proc.returncode < 0 else None}):\n"
                                  f"{proc.stdout}\n{proc.stderr}")
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith(("VALUE", "ERROR"))]
    assert len(lines) == 1, f"no outcome printed:\n{proc.stdout}\n{proc.stderr}"
    kind, _, rest = lines[0].partition(" ")
    if kind == "VALUE":
        got, expected = map(float, rest.split())
        assert got == expected, f"recursive sum of 100000 elements: {got}, numpy gives {expected}"
    else:
        assert re.search(r"recurs|stack|depth", rest, re.I), f"the error does not mention recursion/stack: {rest}"


def test_cf_recursion_depth_small_still_works(agc_bin, tmp_path):
    """The same library on a short list: the deep-recursion guard must not reject ordinary depths."""
    model = tmp_path / "cf_shallow_recursion.py"
    model.write_text(textwrap.dedent(LINKED_LIST_MODEL))
    lib = harness.agc.load(harness.agc.build(model, tmp_path / "out"))
    rng = np.random.default_rng(1)
    n = 1000
    order = rng.permutation(n)
    nxt = -np.ones(n, dtype=np.int64)
    nxt[order[:-1]] = order[1:]
    val = rng.integers(-1000, 1000, size=n).astype(np.float64)
    assert float(lib.total(nxt, val, np.int64(order[0]))) == float(val.sum())


WHILE_STATE = re.compile(r"=\s*while\s+([^:]*):")
IF_RESULTS = re.compile(r"^\s*(%[\w.]+(?:\s*,\s*%[\w.]+)*)\s*=\s*if\s")


def test_cf_loop_state_is_the_live_modified_variables(agc_bin, tmp_path):
    """Liveness decides the loop state: temporaries assigned and read within one iteration
    (`t`, `u`) and a variable reassigned after the loop before any read (`scratch`) are not
    carried; the accumulator, the counter and the state read after the loop are."""
    ir = build_ir(agc_bin, tmp_path, "cf_ir_live_state", '''
        """Temporaries stay inside the loop."""
        import agc
        import agc.numpy as np


        @agc.export
        def run(x: agc.f32[3], limit: agc.f32[()]):
            acc = np.zeros(3, dtype=np.float32)
            scratch = np.ones(5, dtype=np.float32)
            i = np.zeros((), dtype=np.int64)
            while np.sum(acc) < limit and i < 100:
                t = np.tanh(x) * 2.0
                u = t + acc
                scratch = u * 3.0
                acc = u
                i = i + 1
            scratch = acc * 2.0
            return acc, i, scratch
        ''')
    states = [m.group(1) for m in WHILE_STATE.finditer(ir)]
    assert len(states) == 1, f"expected one while op:\n{ir}"
    carried = [v for v in states[0].split(",") if v.strip()]
    assert len(carried) == 2, f"expected the loop to carry exactly acc and i, got {carried}:\n{ir}"


def test_cf_if_returns_only_variables_live_after_it(agc_bin, tmp_path):
    """Both branches assign `t` (with different shapes) and `y`; only `y` is read after the
    `if`, so the `if` op has one result and the differing shapes of `t` are not an error."""
    ir = build_ir(agc_bin, tmp_path, "cf_ir_live_if", '''
        """A dead branch temporary."""
        import agc
        import agc.numpy as np


        @agc.export
        def pick(x: agc.f32[4], c: agc.f32[()]):
            if c > 0:
                t = x[:2]
                y = np.sum(t)
            else:
                t = x * 2.0
                y = np.max(t)
            return y
        ''')
    results = [m.group(1) for line in ir.splitlines() if (m := IF_RESULTS.match(line))]
    assert len(results) == 1, f"expected one if op:\n{ir}"
    assert len(results[0].split(",")) == 1, f"expected the if to return only y:\n{ir}"
