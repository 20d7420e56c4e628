"""The differential fuzzer as a test: a fixed seed, a few hundred generated programs, every one
built by agc and compared with the eager CPython/numpy/autograd run (tests/fuzz/README.md).

One test per program, so a failure names its program: reproduce it (and get a shrunk
reproducer) with `python3 tests/fuzz/run.py --mix quick --seed SEED --only INDEX`.
Mismatches, crashes and timeouts fail. Rejections fail unless the diagnostic matches
`ALLOWED_REJECTIONS` (constructs agc documents as unsupported, outside the contract);
they are reported in the summary test either way.

Programs failing because of open bugs are strict xfails in `XFAIL` (by program id
"SEED-INDEX", each with its FINDINGS.md entry): when the bug is fixed the test
XPASSes, fails loudly, and the entry must be removed. The generator itself never
avoids a construct because agc gets it wrong.
"""

import os
import re
import shutil
import sys
import tempfile
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from agcfuzz import campaign, report  # noqa: E402

SEED = 20250101
COUNT = int(os.environ.get("AGC_FUZZ_COUNT", "200"))
MIX = "quick"

# program id -> reason (a FINDINGS.md entry). Strict: a fixed bug makes the test fail until removed.
XFAIL = {
}

# Diagnostics for constructs agc documents as not supported (outside the contract's guarantees).
ALLOWED_REJECTIONS = [
]

_state = {}


@pytest.fixture(scope="module")
def outcomes(agc_bin):
    """Runs the whole campaign once (two worker processes), on a private copy of the compiler."""
    if "outcomes" in _state:
        return _state["outcomes"]
    tmp = Path(tempfile.mkdtemp(prefix="agc-fuzz-pytest-"))
    binary = tmp / "agc"
    shutil.copy2(agc_bin, binary)
    cfg = campaign.Config(agc_bin=str(binary), out_dir=str(tmp / "out"), work_dir=str(tmp / "work"), seed=SEED,
                          shrink=False, mix=MIX)
    try:
        result = campaign.run(cfg, COUNT, jobs=2)
    finally:  # keep only the reproducers of failures (small); the compiler copy is 250 MB
        shutil.rmtree(tmp / "work", ignore_errors=True)
        binary.unlink(missing_ok=True)
    _state["outcomes"] = {o.index: o for o in result}
    _state["tmp"] = tmp
    return _state["outcomes"]


def _allowed(message):
    return next((why for pat, why in ALLOWED_REJECTIONS if re.search(pat, message)), None)


def _describe(o):
    lines = [f"program {o.pid} (mix {MIX}, attempt {o.attempt}): {o.status}" + (f" ({o.kind})" if o.kind else "")]
    if o.export:
        lines.append(f"export {o.export}, input set {o.input_set}")
    lines.append(o.message)
    if o.expected:
        lines += [f"expected (eager): {o.expected}", f"actual (agc):     {o.actual}"]
    if o.note:
        lines.append(o.note)
    if o.reproducer:
        lines.append(f"saved: {o.reproducer}/original.py")
    lines.append(f"reproduce and shrink: python3 tests/fuzz/run.py --mix {MIX} --seed {SEED} --only {o.index}")
    return "\n".join(lines)


def _param(i):
    pid = f"{SEED}-{i}"
    marks = [pytest.mark.xfail(strict=True, reason=XFAIL[pid])] if pid in XFAIL else []
    return pytest.param(i, id=pid, marks=marks)


@pytest.mark.parametrize("index", [_param(i) for i in range(COUNT)])
def test_program(outcomes, index):
    o = outcomes[index]
    if o.status in ("pass", "invalid"):
        return
    if o.status == "rejected" and _allowed(o.message):
        return
    pytest.fail(_describe(o), pytrace=False)


def test_summary(outcomes):
    """The breakdown (printed with -s or on failure); most generated programs must be usable tests."""
    text = report.table(list(outcomes.values()))
    allowed = [o for o in outcomes.values() if o.status == "rejected" and _allowed(o.message)]
    if allowed:
        text += "\n\nrejections allowed as outside the contract:\n" + "\n".join(
            f"  {o.pid}: {o.message}" for o in allowed)
    print("\n" + text)
    invalid = sum(o.status == "invalid" for o in outcomes.values())
    assert invalid <= COUNT // 20, f"{invalid} program indices had no valid generated program\n{text}"
