import agc
import agc.numpy as np


@agc.export
def f(a: agc.f32[2, 3], b: agc.f32[2, 4]):
    return np.concatenate([a, b], axis=0)  # ERROR: concatenat
