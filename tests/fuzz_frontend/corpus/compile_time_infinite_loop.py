# fuzz_frontend (FINDINGS.md O1, fixed): a compile-time `while` whose condition never changes (k
# is not incremented) and whose body stages operations unrolled until the 1,000,000-iteration
# limit (~16 s, ~2 GB) or until the compiler ran out of memory. It now stops with a file:line:col
# error once the loop has staged 100,000 operations (under a second).
import agc
import agc.numpy as np


@agc.export
def f(x: agc.f32["B", 6], w: agc.f32[6, 6]):
    k = 0
    while k < 3:
        x = np.tanh(x @ w) + x
    return x
