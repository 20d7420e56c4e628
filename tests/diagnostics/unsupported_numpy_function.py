import agc
import agc.numpy as np


@agc.export
def f(x: agc.f32[2, 2]):
    return np.histogram(x)  # ERROR: numpy.histogram is not supported by agc
