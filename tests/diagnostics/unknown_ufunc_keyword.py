import agc
import agc.numpy as np


@agc.export
def f(x: agc.f32[3]):
    return np.exp(x, foo=3)  # ERROR: TypeError: exp\(\) got an unexpected keyword argument 'foo'
