import agc
import agc.numpy as np


@agc.export
def f(x: agc.f32[3]):
    names = {"a", "b"}  # ERROR: set
    return x * len(names)
