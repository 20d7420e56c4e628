import agc
import agc.numpy as np


@agc.export
def f(x: agc.f32[2, 2]):
    return x.sum(keepdim=True)  # ERROR: did you mean 'keepdims'
