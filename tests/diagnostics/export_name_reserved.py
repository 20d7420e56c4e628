import agc
import agc.numpy as np


@agc.export(name="release")  # ERROR: export name 'release' is reserved by agc
def f(x: agc.f32[3]):
    return x
