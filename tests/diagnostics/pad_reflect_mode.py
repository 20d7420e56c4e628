import agc
import agc.numpy as np


@agc.export
def f(x: agc.f32["N", 3]):
    return np.pad(x, 1, mode="reflect")  # ERROR: mode 'reflect' is not supported
