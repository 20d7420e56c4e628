import agc
import agc.numpy as np


@agc.export
def f(x: agc.f32[2, 2]):
    return x.astype(agc.float32)  # ERROR: module 'agc' has no attribute 'float32' \(did you mean 'f32'\?\)
