import agc
import agc.numpy as np


@agc.export
def f(x: agc.f32[4, 3]):
    y = np.zeros((4, 3), dtype=np.float32)
    y[1:3] = x  # ERROR: could not broadcast input array from shape \(4, 3\) into shape \(2, 3\)
    return y
