import agc
import agc.numpy as np


@agc.export
def f(x: agc.f32[2, 2]):
    return np.sum(x, axis=1, keepdim=True)  # ERROR: did you mean 'keepdims'
