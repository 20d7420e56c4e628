import agc
import agc.numpy as np


@agc.export
def f(x: agc.f32[3]):
    y = x + * 2  # ERROR: syntax|unexpected|expected|invalid
    return y
