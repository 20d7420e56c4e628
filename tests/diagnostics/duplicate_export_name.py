import agc
import agc.numpy as np


@agc.export(name="predict")
def f(x: agc.f32[3]):
    return x


@agc.export(name="predict")  # ERROR: duplicate|already|predict
def g(x: agc.f32[3]):
    return x * 2
