import agc
import agc.numpy as np


def project(x, w):
    return np.matmul(x, w)  # ERROR: matmul


@agc.export
def f(x: agc.f32["B", 8], w: agc.f32[7, 2]):
    h = np.tanh(x)
    return project(h, w)
