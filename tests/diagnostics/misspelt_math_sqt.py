import agc
import agc.numpy as np


@agc.export
def f(x: agc.f32[2, 2]):
    import math
    return x * math.sqt(2.0)  # ERROR: did you mean 'sqrt'
