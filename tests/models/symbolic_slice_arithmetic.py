"""Arithmetic between slices of one symbolic dim: x[1:] - x[:-1] has size B-1 on both sides."""
import agc
import agc.numpy as np


@agc.export
def differences(x: agc.f32["B"]):
    return x[1:] - x[:-1]


@agc.export
def trapezoid(x: agc.f32["B"], y: agc.f32["B"]):
    return np.sum((y[1:] + y[:-1]) * (x[1:] - x[:-1]) / 2)
