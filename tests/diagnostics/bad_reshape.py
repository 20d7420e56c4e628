import agc
import agc.numpy as np


@agc.export
def f(x: agc.f32[3, 4]):
    y = np.tanh(x)
    return y.reshape(5, 2)  # ERROR: reshape
