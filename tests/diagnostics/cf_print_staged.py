import agc
import agc.numpy as np


@agc.export
def f(x: agc.f32[3]):
    y = x * 2
    if np.sum(y) > 0:
        print(y)  # ERROR: print
    return y
