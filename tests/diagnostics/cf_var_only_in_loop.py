import agc
import agc.numpy as np


@agc.export
def f(x: agc.f32[3], n: agc.i64[()]):
    for i in range(n):
        y = x * i
    return y  # ERROR: undefined|only in
