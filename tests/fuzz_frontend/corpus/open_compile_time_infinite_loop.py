# fuzz_frontend, OPEN (tests/fuzz_frontend/FINDINGS.md, O1): a compile-time `while` whose
# condition never changes (k is not incremented) and whose body stages operations unrolls until
# the compiler runs out of memory (SIGABRT, "memory allocation of N bytes failed") long before the
# 1,000,000-iteration limit of compile-time loops. CPython would loop forever too; agc should
# stop with a file:line:col error. Excluded from tests/test_fuzz_frontend.py (OPEN).
import agc
import agc.numpy as np


@agc.export
def f(x: agc.f32["B", 6], w: agc.f32[6, 6]):
    k = 0
    while k < 3:
        x = np.tanh(x @ w) + x
    return x
