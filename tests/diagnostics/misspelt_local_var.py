import agc
import agc.numpy as np


@agc.export
def f(x: agc.f32[2, 2]):
    total = x * 2
    return totl + 1  # ERROR: did you mean 'total'
