import agc
import agc.numpy as np


@agc.export
def f(x: agc.f32[3]):
    y = x * 2
        return y  # ERROR: indent|unexpected|expected|invalid
