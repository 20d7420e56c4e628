import agc
import agc.numpy as np


@agc.export
def f(x: agc.f32[2, 2]):
    s = x
    for i, r in enumarate(x):  # ERROR: did you mean 'enumerate'
        s = s + r
    return s
