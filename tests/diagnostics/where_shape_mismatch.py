import agc
import agc.numpy as np


@agc.export
def f(x: agc.f32[3], m: agc.bool_[4]):
    return np.where(m, x, 0.0)  # ERROR: broadcast|shape
