# fuzz_frontend, OPEN (tests/fuzz_frontend/FINDINGS.md, O2): a staged `if` one of whose branches
# raises at compile time (3 % 0: the path fails at run time) while the branches append to a list
# differently. `agc check` passes; `agc build` stops with "error: not supported yet: op36 (if):
# op34 (fill): size of symbolic dim `capacity#2[:%30]` is unknown here": the staged list's
# buffer is sized by a dim the branch cannot read, and the backend's error has no file:line:col.
# Excluded from tests/test_fuzz_frontend.py (OPEN).
import agc
import agc.numpy as np


@agc.export
def f(x: agc.f32["N", 3], c: agc.f32[()]):
    outs = [x[0]]
    if c > 0:
        outs.append(x[1] * (3 % 0))
    else:
        outs.append(-x[0])
    return np.stack(outs)
