import agc
import agc.numpy as np


@agc.export
def f(x: agc.f32["N"]):
    h = x[0:1]
    for i in range(x.shape[0]):
        h = np.concatenate([h, x[i:i + 1]])  # ERROR: shape
    return h
