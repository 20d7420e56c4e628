import agc
import agc.numpy as np


@agc.export
def f(x: agc.f32[3]):
    return x + round(1e300)  # ERROR: integer overflow.*64 bits
