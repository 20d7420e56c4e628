import agc
import agc.numpy as np


@agc.export
def f(x: agc.f32[3], s: agc.i32[3]):
    return x << s  # ERROR: shifts are not supported for float
