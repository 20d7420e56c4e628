import agc
import agc.numpy as np


@agc.export
def f(x: agc.f32[3]):
    L = []
    L.append(L)  # ERROR: list that contains itself
    return x + len(L)
