import agc
import agc.numpy as np


@agc.export
def f(x: agc.f32[3, 4]):
    return np.transpose(x, (0, 0))  # ERROR: ax[ie]s|transpose|permutation
