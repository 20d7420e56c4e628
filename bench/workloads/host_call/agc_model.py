"""The smallest useful export: the sum of two 4-element vectors."""
import agc
import agc.numpy as np


@agc.export
def add4(x: agc.f32[4], y: agc.f32[4]):
    return x + y
