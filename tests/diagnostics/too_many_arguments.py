import agc
import agc.numpy as np


def scale(x, k=2.0):
    return x * k


@agc.export
def f(x: agc.f32[3]):
    return scale(x, 3.0, 4.0)  # ERROR: argument
