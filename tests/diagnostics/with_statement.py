import agc
import agc.numpy as np


@agc.export
def f(x: agc.f32[3]):
    with np.errstate(all="ignore"):  # ERROR: with
        y = x / 0
    return y
