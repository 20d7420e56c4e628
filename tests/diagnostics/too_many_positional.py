import agc
import agc.numpy as np


@agc.export
def f(x: agc.f32[3]):
    return np.exp(x, None, 2)  # ERROR: TypeError: exp\(\) takes at most 2 positional arguments but 3 were given
