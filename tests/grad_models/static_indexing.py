"""Integer indices (positive, negative), mixed with slices and Ellipsis, repeated reads of one element (float32)."""
import agc
import agc.numpy as np


def loss(x):
    # x: [4,5,3]
    a = x[2]                    # [5,3]
    b = x[-1, 1:4]              # [3,3]
    c = x[:, 0, -1]             # [4]
    d = x[..., 1]               # [4,5]
    e = x[1, 2, 0]              # ()
    return np.sum(a ** 2) + np.sum(b @ b) + np.sum(c * np.arange(4)) + np.sum(np.tanh(d)) + e * e * 5.0 + x[1, 2, 0]


@agc.export
def index_grad(x: agc.f32[4, 5, 3]):
    return agc.grad(loss)(x)


def first_last(x):
    return x[0] * x[-1] + np.sum(x[1:-1] ** 2)


@agc.export
def symbolic_index_grad(x: agc.f32["N"]):
    return agc.grad(first_last)(x)


AGC_GRAD_CHECKS = {"index_grad": ("loss", 0), "symbolic_index_grad": ("first_last", 0)}
