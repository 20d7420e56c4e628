import agc
import agc.numpy as np


@agc.export
def f(x: agc.f32[2, 2]):
    hidden = x * 2
    return hiden + 1  # ERROR: NameError: name 'hiden' is not defined \(did you mean 'hidden'\?\)
