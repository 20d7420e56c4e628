import agc
import agc.numpy as np


@agc.export
def f(x: agc.f32[3, 4]):
    y = x * x
    return np.sum(y, axis=2)  # ERROR: axis
