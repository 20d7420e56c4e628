import agc
import agc.numpy as np


@agc.export
def f(x: agc.f32[2, 2]):
    return x * flaot(2)  # ERROR: did you mean 'float'
