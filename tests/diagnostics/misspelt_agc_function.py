import agc
import agc.numpy as np


@agc.export
def f(x: agc.f32[2, 2]):
    return agc.grd(np.sum)(x)  # ERROR: module 'agc' has no attribute 'grd' \(did you mean 'grad'\?\)
