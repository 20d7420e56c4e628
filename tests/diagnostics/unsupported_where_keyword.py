import agc
import agc.numpy as np


@agc.export
def f(x: agc.f32[3, 4], m: agc.bool_[3, 4]):
    return np.sum(x, axis=1, where=m)  # ERROR: sum\(\) with where= other than its default is not supported
