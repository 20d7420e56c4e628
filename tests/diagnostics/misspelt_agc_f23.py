import agc
import agc.numpy as np


@agc.export
def f(x: agc.f32[2, 2]):
    return x.astype(agc.f23)  # ERROR: did you mean 'f32'
