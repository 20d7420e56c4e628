"""A run-time index on a non-leading axis: x[:, j] and x[..., j] with j a parameter (float32)."""
import agc
import agc.numpy as np


def column(x, j):
    return np.sum(np.tanh(x[:, j]) * np.arange(x.shape[0])) + np.sum(x[..., j] ** 2)


@agc.export
def column_grad(x: agc.f32[5, 4], j: agc.i64[()]):
    return agc.grad(column)(x, j)


AGC_GRAD_CHECKS = {"column_grad": ("column", 0)}


def agc_grad_inputs(name, rng):
    x = rng.standard_normal((5, 4)).astype(np.float32)
    return [[x, np.int64(j)] for j in (0, 3, -1)]
