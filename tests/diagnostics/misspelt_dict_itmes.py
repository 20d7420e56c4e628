import agc
import agc.numpy as np


@agc.export
def f(x: agc.f32[2, 2]):
    d = {'a': x}
    for k, v in d.itmes():  # ERROR: did you mean 'items'
        x = x + v
    return x
