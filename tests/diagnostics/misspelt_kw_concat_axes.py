import agc
import agc.numpy as np


@agc.export
def f(x: agc.f32[2, 2]):
    return np.concatenate([x, x], axes=0)  # ERROR: did you mean 'axis'
