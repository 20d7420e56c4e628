"""Gradient through item assignment: a row written at a run-time index, a static block, a column,
a masked write (overwritten parts get no gradient) and row updates in a staged loop.

autograd cannot differentiate item assignment, so the eager oracle differentiates
`loss_functional`, the same function written with np.where/np.concatenate; finite differences
use `loss` as written."""
import agc
import agc.numpy as np


def loss(x, w, k):
    y = np.zeros((4, 3))
    y[k] = x * 2.0
    y[1:3, 1:] = np.tanh(w[:2, :2])
    y[:, 0] = y[:, 0] + w[:, 2]
    y[y > 1.5] = 0.0
    out = np.zeros((3, 3))
    for t in range(k + 1):
        out[t % 3] = out[t % 3] + y[t] * w[t % 4, 0]
    return np.sum(out * out) + np.sum(y * np.sin(y))


def loss_functional(x, w, k):
    rows = np.arange(4)[:, None]
    cols = np.arange(3)[None, :]
    y = np.where(rows == k, x * 2.0, 0.0)
    block = np.concatenate([np.zeros((1, 2)), np.tanh(w[:2, :2]), np.zeros((1, 2))], axis=0)
    placed = np.concatenate([np.zeros((4, 1)), block], axis=1)
    y = np.where((rows >= 1) & (rows < 3) & (cols >= 1), placed, y)
    y = np.concatenate([(y[:, 0] + w[:, 2])[:, None], y[:, 1:]], axis=1)
    y = np.where(y > 1.5, 0.0, y)
    out = np.zeros((3, 3))
    for t in range(k + 1):
        out = out + np.where(np.arange(3)[:, None] == t % 3, y[t] * w[t % 4, 0], 0.0)
    return np.sum(out * out) + np.sum(y * np.sin(y))


@agc.export
def setitem_grad(x: agc.f64[3], w: agc.f64[4, 3], k: agc.i64[()]):
    return agc.grad(loss, argnums=(0, 1))(x, w, k)


def setitem_grad_reference(x, w, k):
    return agc.grad(loss_functional, argnums=(0, 1))(x, w, k)


AGC_GRAD_CHECKS = {"setitem_grad": ("loss", (0, 1), {"eager": "setitem_grad_reference"})}


def agc_grad_inputs(name, rng):
    x = 0.7 * rng.standard_normal(3)
    w = 0.7 * rng.standard_normal((4, 3))
    return [[x, w, np.int64(k)] for k in (0, 3)]
