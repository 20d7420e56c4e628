# fuzz_frontend, OPEN (tests/fuzz_frontend/FINDINGS.md, O4): a static first dim of 1000 (a mutated
# annotation, was "T") unrolls the loop into 1000 staged `if`s: `agc check` takes 0.03 s, the IR
# passes milliseconds, but `agc build` 247 s and 3.7 GB (200 ifs 4.7 s, 400 ifs 22 s: about
# n^2.3, in the backend). Excluded from tests/test_fuzz_frontend.py (OPEN).
import agc
import agc.numpy as np


@agc.export
def count_positive(x: agc.f32[1000, 3]):
    n = 0
    for t in range(x.shape[0]):
        if np.sum(x[t]) > 0:
            n += 1
    return np.asarray(n)
