import agc
import agc.numpy as np


@agc.export
def f(x: agc.f32[3, 4]):
    first = x[0]
    return first + x[3]  # ERROR: index|out of range|bounds
