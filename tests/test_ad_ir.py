"""The CPS form of reverse-mode AD in the IR (`agc build --emit ir`), and deep CPS recursion at run time.

- `value_and_grad` makes a seed continuation, passes it to `f.cps` and reads the results back
  with `cont_outputs`; `f.cps` takes a `cont<...>` parameter and applies it;
- a staged recursion's CPS form passes a continuation (a value made by `cont`) to its recursive
  calls, and no generated function calls the plain forward function: the forward runs once;
- a staged loop in the differentiated function runs once, inside its recursive CPS function,
  which applies the continuation of the rest of the program: no generated function holds a `while`;
- a recursion 100,000 levels deep differentiates correctly (closed-form derivative as the oracle).
"""

import re

import numpy as np

from test_control_flow_ir import build_ir, functions

OP = re.compile(r"^\s*(?:%[\d, %]+=\s*)?(\w+)\s*(.*)$")
CALLEE = re.compile(r"\{callee=@f(\d+)\}")


def ops_of(text):
    """(op name, rest of the line) for each op line of a function's text."""
    found = []
    for line in text.splitlines()[1:]:
        m = OP.match(line)
        if m and not line.strip().startswith(("^", "}")):
            found.append((m.group(1), m.group(2)))
    return found


def generated(funcs):
    """The functions AD generated (by the names it gives them)."""
    marks = (".cps", ".k", ".seed", ".value_and_grad", ".while", ".vjp")
    return {n: t for n, t in funcs.items() if any(m in n for m in marks)}


def test_value_and_grad_applies_f_cps_to_a_seed_continuation(agc_bin, tmp_path):
    ir = build_ir(agc_bin, tmp_path, "cps_straight", """
        import agc
        import agc.numpy as np

        def loss(w, x):
            return np.sum(np.tanh(x @ w) ** 2)

        @agc.export
        def g(w: agc.f32[3, 2], x: agc.f32[4, 3]):
            return agc.value_and_grad(loss)(w, x)
    """)
    funcs = functions(ir)
    vg = [t for n, t in funcs.items() if n.endswith(".value_and_grad")]
    assert len(vg) == 1, sorted(funcs)
    names = [op for op, _ in ops_of(vg[0])]
    assert names.count("cont") == 1 and "cont_outputs" in names and "call" in names, vg[0]
    cps = [t for n, t in funcs.items() if n.endswith(".cps")]
    assert len(cps) == 1, sorted(funcs)
    header = cps[0].splitlines()[0]
    assert "cont<(f32[]) -> (f32[])>" in header, header
    assert [op for op, _ in ops_of(cps[0])].count("apply") == 1, cps[0]


def test_recursion_passes_continuations_and_never_recomputes_the_forward(agc_bin, tmp_path):
    ir = build_ir(agc_bin, tmp_path, "cps_tree", """
        import agc
        import agc.numpy as np

        def encode(W, leaves, left, right, node):
            if left[node] < 0:
                return np.tanh(leaves[node])
            h = np.concatenate([encode(W, leaves, left, right, left[node]),
                                encode(W, leaves, left, right, right[node])])
            return np.tanh(h @ W)

        def loss(W, leaves, left, right):
            return np.sum(encode(W, leaves, left, right, 0) ** 2)

        @agc.export
        def g(W: agc.f32[8, 4], leaves: agc.f32["N", 4], left: agc.i64["N"], right: agc.i64["N"]):
            return agc.grad(loss, argnums=(0, 1))(W, leaves, left, right)
    """)
    funcs = functions(ir)
    order = list(funcs)
    forward = [n for n in order if re.fullmatch(r"encode\.r\d+", n)]
    assert len(forward) == 1, order
    forward_id = order.index(forward[0])
    rec_cps = [n for n in order if n.startswith("encode") and n.endswith(".cps")]
    assert len(rec_cps) == 1, order
    rec_id = order.index(rec_cps[0])
    made = set()
    calls_to_self_with_cont = 0
    for name, text in generated(funcs).items():
        for line in text.splitlines():
            lhs = line.split("=")[0]
            if re.search(r"=\s*cont\s", line):
                made.add(lhs.strip())
            m = CALLEE.search(line)
            if m:
                callee = int(m.group(1))
                assert callee != forward_id, f"{name} recomputes the forward pass:\n{line}"
                if callee == rec_id and name.startswith("encode"):
                    operands = line.split("call", 1)[1].split("{")[0]
                    if any(v.strip() in made for v in operands.split(",")):
                        calls_to_self_with_cont += 1
    # the two recursive calls: the first in encode.cps, the second in its continuation
    assert calls_to_self_with_cont == 2, ir


def test_a_loop_in_the_differentiated_function_runs_once(agc_bin, tmp_path):
    ir = build_ir(agc_bin, tmp_path, "cps_loop", """
        import agc
        import agc.numpy as np

        def loss(x, n):
            i = 0
            while i < n:
                x = np.sin(x) * 1.5
                i += 1
            return np.sum(x)

        @agc.export
        def g(x: agc.f64[3], n: agc.i64[()]):
            return agc.grad(loss)(x, n)
    """)
    gen = generated(functions(ir))
    assert any(".while" in n and n.endswith(".cps") for n in gen), sorted(gen)
    for name, text in gen.items():
        assert "while" not in [op for op, _ in ops_of(text)], f"{name} runs the loop again:\n{text}"


def test_recursion_100000_deep_differentiates(agc_bin, tmp_path):
    import agc

    model = tmp_path / "deep_chain.py"
    model.write_text(
        "import agc\nimport agc.numpy as np\n\n"
        "def chain(x, w, n):\n"
        "    if n <= 0:\n"
        "        return x\n"
        "    return chain(x, w, n - 1) * w\n\n"
        "@agc.export\n"
        "def g(x: agc.f64[()], w: agc.f64[()], n: agc.i64[()]):\n"
        "    return agc.value_and_grad(chain, argnums=(0, 1))(x, w, n)\n"
    )
    out = tmp_path / "out"
    agc.build(str(model), str(out))
    lib = agc.load(str(out / "libdeep_chain.so"))
    n, x, w = 100_000, 1.5, 1.0 - 1e-6
    value, dx, dw = lib.g(np.float64(x), np.float64(w), np.int64(n))  # results are flattened
    np.testing.assert_allclose(value, x * w**n, rtol=1e-12)
    np.testing.assert_allclose(dx, w**n, rtol=1e-12)
    np.testing.assert_allclose(dw, n * x * w ** (n - 1), rtol=1e-9)


def test_a_call_in_a_loop_body_runs_once_and_differentiates(agc_bin, tmp_path):
    import agc

    source = """
        import agc
        import agc.numpy as np

        def power(x, n):
            if n <= 0:
                return x * 0.0 + 1.0
            return x * power(x, n - 1)

        def loss(x, m, n):
            s = x * 0.0
            i = 0
            while i < m:
                s = s + power(x, n)
                i += 1
            return np.sum(s)

        @agc.export
        def g(x: agc.f64[3], m: agc.i64[()], n: agc.i64[()]):
            return agc.value_and_grad(loss)(x, m, n)
    """
    funcs = functions(build_ir(agc_bin, tmp_path, "cps_loop_call", source))
    order = list(funcs)
    forward = [order.index(n) for n in order if re.fullmatch(r"power\.r\d+", n)]
    assert len(forward) == 1, order
    gen = generated(funcs)
    assert not any(n.endswith(".vjp") for n in gen), sorted(gen)
    for name, text in gen.items():
        for m in CALLEE.finditer(text):
            assert int(m.group(1)) != forward[0], f"{name} recomputes power's forward pass"
    agc.build(str(tmp_path / "cps_loop_call.py"), str(tmp_path / "lib"))
    lib = agc.load(str(tmp_path / "lib" / "libcps_loop_call.so"))
    x, m, n = np.array([0.5, -1.25, 2.0]), 4, 5
    value, dx = lib.g(x, np.int64(m), np.int64(n))
    np.testing.assert_allclose(value, m * np.sum(x**n), rtol=1e-12)
    np.testing.assert_allclose(dx, m * n * x ** (n - 1), rtol=1e-12)


def test_adjoints_of_slices_of_one_value_merge_into_one_concatenation(agc_bin, tmp_path):
    """Four gate slices of one product: their zero-padded adjoints are one concatenation of the
    four pieces, not four padded buffers added together (the gradient itself is checked against
    autograd by tests/grad_models/lstm_cell.py). The staged IR keeps the partial merges, which
    are dead once the last one is made (the pipeline's DCE removes them)."""
    ir = build_ir(agc_bin, tmp_path, "gate_slices", """
        import agc
        import agc.numpy as np

        def loss(w, x):
            g = x @ w
            i, f, c, o = g[:, :2], g[:, 2:4], g[:, 4:6], g[:, 6:]
            return np.sum(np.tanh(i) * f + np.tanh(c) * o)

        @agc.export
        def gr(w: agc.f32[3, 8], x: agc.f32[4, 3]):
            return agc.grad(loss)(w, x)
    """)
    text = "\n".join(generated(functions(ir)).values())
    concats = [rest for op, rest in ops_of(text) if op == "concat"]
    assert any(c.split("{")[0].count("%") == 4 for c in concats), concats
    adds_of_f32_4x8 = [rest for op, rest in ops_of(text) if op == "add" and rest.endswith(": f32[4,8]")]
    assert adds_of_f32_4x8 == [], adds_of_f32_4x8
