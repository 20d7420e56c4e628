import agc
import agc.numpy as np


@agc.export
def f(x: agc.f32[3]):
    return x.astype(np.complex64)  # ERROR: complex|dtype
