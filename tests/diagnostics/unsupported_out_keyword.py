import agc
import agc.numpy as np


@agc.export
def f(x: agc.f32[3, 4], y: agc.f32[3]):
    return np.sum(x, axis=1, out=y)  # ERROR: sum\(\) with out= other than its default is not supported
