import agc
import agc.numpy as np


@agc.export
def f(x: agc.f32[2, 2]):
    return x + np.full((2, 2), fil_value=1.0)  # ERROR: did you mean 'fill_value'
