import agc
import agc.numpy as np


@agc.export
def f(x: agc.f32[2, 2]):
    s = x
    for a, b in zipp(x, x):  # ERROR: did you mean 'zip'
        s = s + a * b
    return s
