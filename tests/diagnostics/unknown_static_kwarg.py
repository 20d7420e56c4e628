import agc
import agc.numpy as np


@agc.export(name="g", mode=1)  # ERROR: mode
def f(x: agc.f32[3]):
    return x
