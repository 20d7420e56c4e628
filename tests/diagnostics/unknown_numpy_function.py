import agc
import agc.numpy as np


@agc.export
def f(x: agc.f32[3]):
    y = np.tanh(x)
    return np.not_a_numpy_function(y)  # ERROR: not_a_numpy_function
