import agc
import agc.numpy as np


@agc.export
def f(x: agc.f32[4]):
    k = 0
    while k < 3:  # ERROR: compile-time loop unrolled \d+ iterations into over 100000 staged operations
        x = np.tanh(x) + 1.0
    return x
