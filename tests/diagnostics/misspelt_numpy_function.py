import agc
import agc.numpy as np


@agc.export
def f(x: agc.f32[2, 2]):
    return np.maxmum(x, x)  # ERROR: AttributeError: module 'numpy' has no attribute 'maxmum' \(did you mean 'maximum'\?\)
