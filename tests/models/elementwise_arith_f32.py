"""Elementwise + - * / unary minus and unary plus on float32, with Python scalars on either side."""
import agc
import agc.numpy as np


@agc.export
def arith(x: agc.f32[3, 4], y: agc.f32[3, 4]):
    return x + y, x - y, x * y, x / (np.abs(y) + 0.5), -x, +y


@agc.export
def with_scalars(x: agc.f32[5]):
    return (2.0 * x - 1) / 3 + (1.5 - x) * 4 - x / 2.5


@agc.export
def chained(x: agc.f32[2, 2], y: agc.f32[2, 2], z: agc.f32[2, 2]):
    return -(x * y - z) * (x + y + z) - -x
