import agc
import agc.numpy as np


@agc.export
def f(x: agc.f32[2, 2]):
    return np.linalg.nrm(x)  # ERROR: module 'numpy.linalg' has no attribute 'nrm' \(did you mean 'norm'\?\)
