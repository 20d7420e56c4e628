import agc
import agc.numpy as np


@agc.export
def f(x: agc.f32[2, 2]):
    return x + lenn(x)  # ERROR: NameError: name 'lenn' is not defined \(did you mean 'len'\?\)
