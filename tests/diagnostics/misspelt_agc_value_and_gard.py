import agc
import agc.numpy as np


@agc.export
def f(x: agc.f32[2, 2]):
    return agc.value_and_gard(np.sum)(x)  # ERROR: did you mean 'value_and_grad'
