import agc
import agc.numpy as np


def helper(v):
    return v * 2


@agc.export
def f(x: agc.f32[2, 2]):
    return x + helpr(x)  # ERROR: did you mean 'helper'
