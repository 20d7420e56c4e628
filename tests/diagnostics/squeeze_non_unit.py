import agc
import agc.numpy as np


@agc.export
def f(x: agc.f32[3, 1]):
    return np.squeeze(x, axis=0)  # ERROR: squeeze|size|axis
