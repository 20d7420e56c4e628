import agc
import agc.numpy as np


@agc.export
def f(x: agc.f32[2, 2]):
    return x.resahpe(4)  # ERROR: AttributeError: .*has no attribute 'resahpe' \(did you mean 'reshape'\?\)
