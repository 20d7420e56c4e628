# fuzz_frontend F16 (was O4; tests/fuzz_frontend/FINDINGS.md): a static first dim of 1000 (a mutated
# annotation, was "T") unrolls the loop into 1000 staged `if`s, which built in 247 s and 3.7 GB: each
# rank-0 value was a heap buffer per branch. Rank-0 values are now scalars in the emitter: seconds.
import agc
import agc.numpy as np


@agc.export
def count_positive(x: agc.f32[1000, 3]):
    n = 0
    for t in range(x.shape[0]):
        if np.sum(x[t]) > 0:
            n += 1
    return np.asarray(n)
