import agc
import agc.numpy as np


@agc.export
def f(x: agc.f32[2, 2]):
    s = x
    for i in rnage(3):  # ERROR: did you mean 'range'
        s = s + x
    return s
