# fuzz_frontend F14 (was O2; tests/fuzz_frontend/FINDINGS.md): a staged `if` one of whose branches
# raises at compile time (3 % 0: the path fails at run time) while the branches append to a list
# differently. The build stopped with "not supported yet: size of symbolic dim
# `capacity#2[:%30]` is unknown here": the placeholder of the list on the raising path is sized by
# a dim only the other path's `dyn_slice` bound. The backend now recomputes such a size from that
# `dyn_slice`'s operands. Values: tests/models/list_append_raising_branch.py.
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
