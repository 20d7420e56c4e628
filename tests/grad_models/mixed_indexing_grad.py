"""Gradients through advanced indexing mixed with slices: indices separated by a slice (their
dims go first), adjacent index arrays broadcast together, repeated indices accumulating (float32)."""
import agc
import agc.numpy as np


def picks(x, i):
    a = x[3, 1:, [1, 3, 3]]
    b = x[:, i, [[0], [2]]]
    return np.sum(np.tanh(a) * 2.0) + np.sum(b ** 2)


@agc.export
def picks_grad(x: agc.f32[5, 4, 6], i: agc.i64[2]):
    return agc.grad(picks)(x, i)


AGC_GRAD_CHECKS = {"picks_grad": ("picks", 0)}


def agc_grad_inputs(name, rng):
    x = rng.standard_normal((5, 4, 6)).astype(np.float32)
    return [[x, np.array([0, 0])], [x, np.array([3, -1])]]
