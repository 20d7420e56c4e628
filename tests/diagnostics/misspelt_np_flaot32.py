import agc
import agc.numpy as np


@agc.export
def f(x: agc.f32[2, 2]):
    return x.astype(np.flaot32)  # ERROR: did you mean 'float32'
