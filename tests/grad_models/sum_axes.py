"""np.sum / .sum over one axis, several axes, negative axes, axis=None, keepdims (float32)."""
import agc
import agc.numpy as np


def loss(x):
    # x: [2,3,4]
    a = np.sum(x, axis=0)                    # [3,4]
    b = np.sum(x, axis=(0, 2))               # [3]
    c = x.sum(axis=-1, keepdims=True)        # [2,3,1]
    d = np.sum(x, axis=1, keepdims=True)     # [2,1,4]
    e = np.sum(x ** 2)
    return np.sum(a ** 2) + np.sum(b * np.arange(3)) + np.sum(np.tanh(c * d)) + e * 0.1


@agc.export
def sum_grad(x: agc.f32[2, 3, 4]):
    return agc.grad(loss)(x)


def row_norms(x):
    return np.sum(np.sqrt(np.sum(x * x, axis=1) + 1e-3))


@agc.export
def row_norm_grad(x: agc.f32["B", 5]):
    return agc.grad(row_norms)(x)


AGC_GRAD_CHECKS = {"sum_grad": ("loss", 0), "row_norm_grad": ("row_norms", 0)}
