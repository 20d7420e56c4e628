import agc
import agc.numpy as np


def layers(x):
    for k in range(3):
        yield x * k  # ERROR: yield|generator


@agc.export
def f(x: agc.f32[3]):
    total = x
    for y in layers(x):
        total = total + y
    return total
