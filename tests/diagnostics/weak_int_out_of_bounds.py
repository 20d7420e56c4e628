import agc
import agc.numpy as np


@agc.export
def f(n: agc.i32[3]):
    return n + 2**40  # ERROR: out of bounds|overflow|range|int32
