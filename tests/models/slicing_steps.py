"""Slices with steps, negative steps (reversal), negative bounds, and out-of-range bounds clamped as in Python."""
import agc
import agc.numpy as np


@agc.export
def steps(x: agc.f32[10]):
    return x[::2], x[1::3], x[::-1], x[-2:2:-2], x[8:1:-3]


@agc.export
def bounds(x: agc.f32[10]):
    return x[-3:], x[:-3], x[2:-2], x[5:100], x[-100:3], x[7:3]


@agc.export
def two_d(x: agc.f32[6, 5]):
    return x[::2, ::-1], x[1:-1, 1:-1], x[::-2, 2]
