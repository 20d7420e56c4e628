"""Gradients through np.sort (each element's adjoint goes back to where it came from) and
np.cumprod along an axis of run-time length (float64). autograd sorts only 1-D arrays and has no
cumprod gradient, so the eager oracle differentiates `loss_by_columns`, the same function sorting
column by column and multiplying prefixes; finite differences use `loss` as written."""
import agc
import agc.numpy as np


def loss(x):
    s = np.sort(x, axis=0)
    weights = np.arange(1, 4)
    return np.sum(s[-1] * weights) + np.sum(np.cumprod(0.5 * x + 1, axis=0) ** 2) + np.sum(np.sort(x, axis=None)[:2])


def loss_by_columns(x):
    s = np.stack([np.sort(x[:, j]) for j in range(3)], axis=1)
    weights = np.arange(1, 4)
    z = 0.5 * x + 1
    prefix = np.stack([np.prod(z[: i + 1], axis=0) for i in range(x.shape[0])])
    return np.sum(s[-1] * weights) + np.sum(prefix ** 2) + np.sum(np.sort(x.ravel())[:2])


@agc.export
def sort_cumprod_grad(x: agc.f64["N", 3]):
    return agc.grad(loss)(x)


def sort_cumprod_reference(x):
    return agc.grad(loss_by_columns)(x)


AGC_GRAD_CHECKS = {"sort_cumprod_grad": ("loss", 0, {"eager": "sort_cumprod_reference"})}
