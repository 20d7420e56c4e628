import agc
import agc.numpy as np


@agc.export
def f(x: agc.f32[3]):
    v = agc.Variable(x)  # ERROR: module level
    return x
