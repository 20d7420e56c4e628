import agc
import agc.numpy as np


@agc.export
def f(m: agc.bool_[3], k: agc.bool_[3]):
    return np.left_shift(m, k)  # ERROR: shifts are not supported for bool
