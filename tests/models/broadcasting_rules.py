"""numpy broadcasting: (3,1)+(1,4), trailing-dim vectors, 0-d with n-d, broadcasting in where/maximum."""
import agc
import agc.numpy as np


@agc.export
def outer_sum(a: agc.f32[3, 1], b: agc.f32[1, 4]):
    return a + b, a * b - b


@agc.export
def trailing(x: agc.f32[2, 3, 4], v: agc.f32[4], m: agc.f32[3, 1]):
    return x + v, x * m, (x - v) / (m * m + 1)


@agc.export
def with_scalar_tensor(x: agc.f32[2, 3], s: agc.f32[()]):
    return x * s, np.maximum(x, s), np.where(x > s, x, s)


@agc.export
def symbolic_broadcast(x: agc.f32["B", 3], bias: agc.f32[3], col: agc.f32["B", 1]):
    return x + bias + col
