"""A staged `if` one of whose branches raises at run time (a compile-time `3 % 0` on that path)
while the branches append to a staged list differently; the list is stacked after the `if`.
The placeholder for the list on the raising path is sized by the stacked list's length, which
only the other path's slice names (fuzz_frontend finding O2: the build stopped with "size of
symbolic dim ... is unknown here")."""
import agc
import agc.numpy as np


@agc.export
def append_or_raise(x: agc.f32["N", 3], c: agc.f32[()]):
    outs = [x[0]]
    if c > 0:
        outs.append(x[1] * (3 % 0))
    else:
        outs.append(-x[0])
    return np.stack(outs)


@agc.export
def append_in_loop_or_raise(x: agc.f32["N", 3], c: agc.f32[()]):
    outs = []
    for i in range(x.shape[0]):
        if c > 5.0:
            outs.append(x[i] / (1 // 0))
        outs.append(x[i] * c)
    return np.stack(outs)


def agc_test_inputs(export_name, rng, dims):
    taken = dims["N"] % 2 == 1          # one dims set takes the raising path, the other not
    x = rng.standard_normal((dims["N"], 3)).astype(np.float32)
    return [x, np.float32(10.0 if taken else -1.0)]
