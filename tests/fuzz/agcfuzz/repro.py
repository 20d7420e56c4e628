"""Reproducers: a failing program confirmed alone, saved with its inputs, and shrunk.

Each failure gets a folder `<out>/repros/<status>-<pid>/`:

- `original.py`: the program as generated, standalone, with `AGC_FUZZ_INPUTS`
  (the failing call's arrays) and an `agc_test_inputs` hook, so it also drops
  into tests/models as a regression test;
- `shrunk.py`: the same after delta debugging (same failure class);
- `report.json`: seed, index, attempt, the class, message, expected vs actual.

`python3 tests/fuzz/run.py --replay <folder or .py>` rebuilds and re-checks one.
"""

import dataclasses
import json
from pathlib import Path

import numpy as np

from . import oracle
from .campaign import Prepared
from .gen_program import ExportInfo, Program
from .shrink import shrink


def array_literal(a):
    a = np.asarray(a)
    dt = {"float32": "np.float32", "float64": "np.float64", "int32": "np.int32", "int64": "np.int64",
          "bool": "np.bool_"}[str(a.dtype)]
    if a.ndim == 0:
        return f"np.array({a.item()!r}, dtype={dt})"
    return f"np.array({a.tolist()!r}, dtype={dt})"


def inputs_block(prep, outcome):
    k = outcome.input_set or 0
    exports = [outcome.export] if outcome.export else [e.name for e in prep.program.exports]
    items = []
    for name in exports:
        arrays = prep.sets[k]["inputs"][name]
        items.append(f"    {name!r}: [\n" + "".join(f"        {array_literal(a)},\n" for a in arrays) + "    ],")
    return ("\n\n# The inputs of the failing call (input set %d), as tests/harness.py's hook wants them.\n"
            "AGC_FUZZ_INPUTS = {\n%s\n}\n\n\ndef agc_test_inputs(export_name, rng, dims):\n"
            "    return AGC_FUZZ_INPUTS.get(export_name)\n") % (k, "\n".join(items))


def header_doc(outcome, shrunk):
    kind = f" ({outcome.kind})" if outcome.kind else ""
    where = f" in {outcome.export}, input set {outcome.input_set}" if outcome.export else ""
    lines = [f'"""agc fuzz reproducer {outcome.pid} (attempt {outcome.attempt}){" shrunk" if shrunk else ""}: '
             f"{outcome.status}{kind}{where}.", ""]
    lines += [f"    {line}" for line in outcome.message.splitlines()[:8]]
    if outcome.expected:
        lines += ["", f"    expected (eager): {outcome.expected[:600]}", f"    actual (agc):     {outcome.actual[:600]}"]
    lines.append('"""')
    return "\n".join(lines) + "\n"


def strip_inputs(source):
    """A reproducer's source without its doc and inputs block (the program itself)."""
    cut = source.find("\n\n# The inputs of the failing call")
    return source[:cut] + "\n" if cut >= 0 else source


def make_predicate(cfg, runner, prep, outcome, log=None):
    """still_fails(source): the changed program runs eagerly and agc fails on it the same way."""
    target = outcome.signature()
    only = (outcome.export, outcome.input_set) if outcome.export else None
    work = runner.work / "shrink"
    work.mkdir(parents=True, exist_ok=True)
    counter = [0]

    def still_fails(src):
        counter[0] += 1
        path = work / f"cand_{counter[0]}.py"
        path.write_text(src)
        try:
            module = oracle.import_source(path)
        except Exception:  # noqa: BLE001 - a candidate that no longer imports
            return False
        exports = [dataclasses.replace(e, ret_tys=None) for e in prep.program.exports]
        prog = dataclasses.replace(prep.program, source=src, exports=exports)
        try:
            expected = oracle.expected_for(module, prog, prep.sets, only=only)
        except oracle.Invalid:
            return False
        except Exception:  # noqa: BLE001
            return False
        if not _same_kinds(expected, prep.expected):
            return False
        cand = Prepared(prog, path, module, prep.sets, expected)
        o = runner.check_alone(cand, source=src, only=only)
        path.unlink(missing_ok=True)
        if o.signature() == target:
            last[0] = o
            return True
        return False

    last = [None]
    still_fails.last = last

    return still_fails


def _same_kinds(cand, orig):
    """The candidate's eager results have the original's dtypes and shapes (a prefix or a subset of
    them), so shrinking cannot drift to a program that computes something else (say, a loop variable
    that changes type, which agc rejects for a different reason)."""
    for key, (res, _) in cand.items():
        want = [(r.dtype, r.shape) for r in orig[key][0]]
        got = [(r.dtype, r.shape) for r in res]
        if got != want[: len(got)] and not all(g in want for g in got):
            return False
    return True


def handle_failure(cfg, runner, prep, outcome):
    """Confirm `outcome` alone, save the reproducer, shrink it; updates `outcome` in place."""
    alone = runner.check_alone(prep)
    if alone.status == outcome.status and alone.kind == outcome.kind:
        for f in ("message", "export", "input_set", "expected", "actual"):
            setattr(outcome, f, getattr(alone, f))
    elif alone.status in ("pass", "rejected", "crash", "timeout", "mismatch"):
        outcome.note = (f"built alone it is {alone.status} ({alone.kind}: {alone.message[:200]}); "
                        f"{outcome.status} only together with other programs")
        if alone.status != "pass":
            for f in ("status", "kind", "message", "export", "input_set", "expected", "actual"):
                setattr(outcome, f, getattr(alone, f))
    d = Path(cfg.out_dir) / "repros" / f"{outcome.status}-{outcome.pid}"
    d.mkdir(parents=True, exist_ok=True)
    program_src = prep.path.read_text()
    (d / "original.py").write_text(header_doc(outcome, False) + program_src + inputs_block(prep, outcome))
    outcome.reproducer = str(d)
    if cfg.shrink and alone.status == outcome.status and not _already_shrunk(cfg, outcome):
        still_fails = make_predicate(cfg, runner, prep, outcome)
        keep = {e.name for e in prep.program.exports}
        small, tests = shrink(program_src, still_fails, keep=keep, budget_s=cfg.shrink_budget_s)
        small = "import agc\nimport agc.numpy as np\n\n\n" + _drop_imports(small)
        final = still_fails.last[0] or outcome
        shown = dataclasses.replace(outcome, message=final.message, expected=final.expected, actual=final.actual)
        (d / "shrunk.py").write_text(header_doc(shown, True) + small + inputs_block(prep, outcome))
        outcome.shrunk_message, outcome.shrunk_expected, outcome.shrunk_actual = \
            final.message, final.expected, final.actual
        outcome.shrink_tests = tests
        outcome.shrunk = str(d / "shrunk.py")
        outcome.shrunk_lines = small.count("\n")
    (d / "report.json").write_text(json.dumps(dataclasses.asdict(outcome), indent=2, default=str))


def _already_shrunk(cfg, outcome):
    """Rejections and crashes with one normalised message are shrunk once per campaign output folder;
    at most `cfg.max_shrinks` failures are shrunk in all (the others: `run.py --only` later)."""
    import hashlib
    import os

    from .campaign import normalize

    d = Path(cfg.out_dir) / ".shrunk"
    d.mkdir(parents=True, exist_ok=True)
    if cfg.max_shrinks is not None:
        for k in range(cfg.max_shrinks):
            try:
                os.close(os.open(d / f"token-{k}", os.O_CREAT | os.O_EXCL | os.O_WRONLY))
                break
            except FileExistsError:
                continue
        else:
            outcome.note = (outcome.note + "; " if outcome.note else "") + "not shrunk: --max-shrinks reached"
            return True
    if outcome.status == "mismatch":
        return False
    key = hashlib.sha1(f"{outcome.status}|{outcome.kind}|{normalize(outcome.message)}".encode()).hexdigest()[:16]
    try:
        fd = os.open(d / key, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
    except FileExistsError:
        outcome.note = (outcome.note + "; " if outcome.note else "") + "not shrunk: same message as " + \
            (d / key).read_text().strip()
        return True
    os.write(fd, outcome.pid.encode())
    os.close(fd)
    return False


def _drop_imports(src):
    return "\n".join(line for line in src.splitlines()
                     if line not in ("import agc", "import agc.numpy as np")).lstrip("\n") + "\n"


# ---------------------------------------------------------------- replaying a saved reproducer

def program_from_file(path):
    """A Program (one per export, with the reproducer's inputs) read back from a reproducer file."""
    import agc

    path = Path(path)
    module = oracle.import_source(path)
    given = getattr(module, "AGC_FUZZ_INPUTS", {})
    src = strip_inputs(path.read_text())
    uses_grad = "agc.grad" in src or "agc.value_and_grad" in src
    exports, inputs = [], {}
    for e in agc.exports_of(module):
        if e.name not in given:
            continue
        params = [(n, spec) for n, spec in e.params]
        exports.append(ExportInfo(e.name, params, uses_grad=uses_grad))
        inputs[e.name] = [np.asarray(a) for a in given[e.name]]
    prog = Program("replay", 0, 0, 0, src, exports, [])
    return prog, module, [{"dims": {}, "inputs": inputs}]
