import agc
import agc.numpy as np


@agc.export
def f(x: agc.f32[4, 3], v: agc.f32[4]):
    y = x * 2
    return y + v  # ERROR: broadcast
