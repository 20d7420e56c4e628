import agc
import agc.numpy as np


@agc.export
def f(x: agc.f32[3]):
    if np.sum(x) > 0:
        y = x * 2
    return y + 1  # ERROR: undefined|only in
