import agc
import agc.numpy as np


def grow(x, n):
    return grow(x * 2, n + 1)  # ERROR: recursi|depth


@agc.export
def f(x: agc.f32[3]):
    return grow(x, 0)
