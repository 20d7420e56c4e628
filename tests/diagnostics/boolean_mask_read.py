import agc
import agc.numpy as np


@agc.export
def f(x: agc.f32["N", 4]):
    return x[x > 0]  # ERROR: boolean mask|run-time number
