import agc
import agc.numpy as np


@agc.export
def f(x: agc.i32["N"]):
    total = x[0]
    for i in range(x.shape[0]):
        total = total + x[i] * 0.5  # ERROR: dtype
    return total
