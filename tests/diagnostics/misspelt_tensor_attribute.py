import agc
import agc.numpy as np


@agc.export
def f(x: agc.f32[2, 2]):
    return x.shap  # ERROR: has no attribute 'shap' \(did you mean 'shape'\?\)
