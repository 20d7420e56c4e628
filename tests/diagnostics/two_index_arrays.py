import agc
import agc.numpy as np


@agc.export
def f(x: agc.f32[3, 4], i: agc.i64[2], j: agc.i64[2]):
    return x[i, j]  # ERROR: index array|two steps
