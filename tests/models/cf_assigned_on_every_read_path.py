"""Variables assigned on only some paths through staged control flow are fine when every path
that reads them assigns them first (liveness decides): the result of a search assigned before
`break` and by the loop's `else`, and a branch-local value read only in that branch's paths."""
import agc
import agc.numpy as np


@agc.export
def first_below(x: agc.f32["N", 3], t: agc.f32[()]):
    for i in range(x.shape[0]):
        if x[i, 2] < t:
            found = i
            break
    else:
        found = -1
    return found


@agc.export
def search_while(x: agc.f32["N", 3], t: agc.f32[()]):
    i = 0
    while i < x.shape[0]:
        if np.sum(x[i]) > t:
            row = x[i] * 2
            break
        i += 1
    else:
        row = np.zeros(3, dtype=np.float32)
    return row, i


def agc_test_inputs(export_name, rng, dims):
    return [rng.standard_normal((dims["N"], 3)).astype(np.float32), np.float32(-0.3 if dims["N"] % 2 else -5.0)]
