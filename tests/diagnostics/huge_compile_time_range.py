import agc
import agc.numpy as np


@agc.export
def f(x: agc.f32[3]):
    for i in range(2**40):  # ERROR: compile-time range of 1099511627776 items.*run-time bound
        x = x + 1.0
    return x
