import agc
import agc.numpy as np


@agc.export
def f(x: agc.f16[3]):  # ERROR: f16
    return x
