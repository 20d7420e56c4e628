import agc
import agc.numpy as np

LAYERS = 0


@agc.export
def f(x: agc.f32[3]):
    width = 12 // LAYERS  # ERROR: division|zero
    return x * width
