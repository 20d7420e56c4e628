"""Slices of symbolic dims whose sizes depend on the run-time size (clamped like Python), and run-time index errors."""
import agc
import agc.numpy as np


@agc.export
def clamped_slices(x: agc.f32["B", 2]):
    return x[1:], x[:-1], x[-3:], x[:3], x[::-1], x[::2], x[1::3]


@agc.export
def third_row(x: agc.f32["B", 3]):
    """numpy raises IndexError when B < 3; the library must return an error status instead."""
    return x[2]


@agc.export
def last_row(x: agc.f32["B", 3]):
    return x[-1] * 2
