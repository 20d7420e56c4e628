import agc
import agc.numpy as np


@agc.export
def f(x: agc.f32[3]):
    if np.sum(x) > 0:
        z = x
    else:
        y = x * 2
    return y + z  # ERROR: undefined|only in
