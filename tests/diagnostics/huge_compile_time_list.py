import agc
import agc.numpy as np


@agc.export
def f(x: agc.f32[3]):
    zeros = [0] * 10**12  # ERROR: compile-time list of 1000000000000 items exceeds.*np.zeros
    return x + len(zeros)
