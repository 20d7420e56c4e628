import agc
import agc.numpy as np


@agc.export
def f(x: agc.f32[3], n: agc.i64[()]):
    return np.broadcast_to(x, (n, 3))  # ERROR: np.broadcast_to a shape holding a staged integer is not supported
