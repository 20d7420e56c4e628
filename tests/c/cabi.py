"""The model the C and C++ drivers in tests/c call (library name: cabi)."""
import agc
import agc.numpy as np


@agc.export
def affine(x: agc.f32["B", 4], w: agc.f32[4, 3], b: agc.f32[3]):
    """y = x @ w + b, and the index of the largest entry of each row of y."""
    y = x @ w + b
    return y, np.argmax(y, axis=1)


@agc.export
def sumsq(v: agc.f64["N"]):
    """The sum of squares of v, a 0-d result."""
    return np.sum(v * v)


# The drivers' deterministic inputs, element i of the flattened array (mirrored in inputs.h).
def x_value(i, t=0):
    return np.float32(((i * 7 + t) % 11 - 5) / 4.0)


def w_value(i):
    return np.float32(((i * 5) % 9 - 4) / 8.0)


def b_value(i):
    return np.float32((i % 3 - 1) / 2.0)


def v_value(i):
    return np.float64(((i * 3) % 7 - 3) / 3.0)
