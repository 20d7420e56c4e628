import agc
import agc.numpy as np


@agc.export
def f(a: agc.f32[2, 3, 4]):
    return np.einsum("...i->i", a)  # ERROR: no '...' ellipsis provided to broadcast
