import agc
import agc.numpy as np


@agc.export
def f(x: agc.f32[3], s: agc.f32):  # ERROR: agc\.f32, a dtype without a shape: write agc\.f32\[\(\)\] for a scalar
    return x * s
