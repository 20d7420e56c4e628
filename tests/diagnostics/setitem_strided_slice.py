import agc
import agc.numpy as np


@agc.export
def f(x: agc.f32[6]):
    y = x * 1.0
    y[::2] = 0  # ERROR: step other than 1 is not supported
    return y
