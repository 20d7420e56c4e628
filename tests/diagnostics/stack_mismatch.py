import agc
import agc.numpy as np


@agc.export
def f(a: agc.f32[3], b: agc.f32[4]):
    return np.stack([a, b])  # ERROR: stack|shape
