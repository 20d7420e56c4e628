import agc
import agc.numpy as np


@agc.export
def f(x: agc.f32["N", 3]):
    return np.roll(x, x.shape[0] // 2, axis=1)  # ERROR: shifts must be compile-time ints
