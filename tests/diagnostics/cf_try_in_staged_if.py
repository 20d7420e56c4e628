import agc
import agc.numpy as np


@agc.export
def f(x: agc.f32[3]):
    if np.sum(x) > 0:
        try:  # ERROR: try
            y = np.log(x)
        except ValueError:
            y = x
    else:
        y = x
    return y
