import agc
import agc.numpy as np


@agc.export
def f(n: agc.i64[()]):
    k = n
    while k > 1:
        k = k / 2  # ERROR: dtype
    return k
