import agc
import agc.numpy as np


@agc.export
def f(x: agc.f32[2, 2]):
    r = [x]
    r.extnd([x])  # ERROR: did you mean 'extend'
    return r[0]
