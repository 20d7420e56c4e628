import agc
import agc.numpy as np


@agc.export
def f(x: agc.f32[3]):
    label = "done"
    return label  # ERROR: return|str
