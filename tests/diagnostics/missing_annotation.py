import agc
import agc.numpy as np


@agc.export
def f(x: agc.f32[3], y):  # ERROR: annotat|spec
    return x + y
