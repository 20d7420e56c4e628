"""Gradients through staged control flow, indexing and recursion."""
import agc
import agc.numpy as np


def rnn_loss(W, U, b, xs, h0):
    h = h0
    for t in range(xs.shape[0]):
        h = np.tanh(xs[t] @ W + h @ U + b)
    return np.sum(h * h)


@agc.export
def rnn_grad(W: agc.f64[4, 3], U: agc.f64[3, 3], b: agc.f64[3], xs: agc.f64["T", "B", 4], h0: agc.f64["B", 3]):
    return agc.grad(rnn_loss, argnums=(0, 1, 2, 4))(W, U, b, xs, h0)


def branchy(x, w):
    if np.sum(x * w) > 0:
        y = np.sin(x) * w
    else:
        y = np.exp(x) - w
    return np.sum(y * y)


@agc.export
def branch_grad(x: agc.f64[5], w: agc.f64[5]):
    return agc.value_and_grad(branchy, argnums=(0, 1))(x, w)


def newton_like(x, a):
    n = 0
    while np.sum(x * x) < 100.0 and n < 50:
        x = x * a + 0.5
        n = n + 1
    return np.sum(x)


@agc.export
def while_grad(x: agc.f64[3], a: agc.f64[3]):
    return agc.grad(newton_like, argnums=(0, 1))(x, a)


def indexing(x, i):
    y = x[1:] * x[:-1]
    z = x[-1] * x
    return np.sum(y) + np.sum(z * z) + x[i] * x[0] + np.max(x) + np.prod(x[:3])


@agc.export
def index_grad(x: agc.f64["N"], i: agc.i64[()]):
    return agc.grad(indexing)(x, i)


def tree(x, lo, hi):
    if hi - lo == 1:
        return np.sin(x[lo])
    mid = (lo + hi) // 2
    a = tree(x, lo, mid)
    return a * tree(x, mid, hi) + a


def tree_loss(x):
    return tree(x, 0, x.shape[0])


@agc.export
def tree_grad(x: agc.f64["N"]):
    return agc.grad(tree_loss)(x)


def misc(x, y):
    a = np.where(x > 0, x, 0.1 * x)
    b = np.maximum(x, y) + np.minimum(x, 2.0)
    c = np.abs(y) + np.sqrt(x * x + 1.0) + np.log(1.0 + y * y)
    d = np.concatenate([a, b], axis=0)
    s = np.stack([c, a], axis=1)
    return np.sum(d) + np.sum(s @ np.ones((2, 3))) + np.mean(np.transpose(s) ** 2)


@agc.export
def misc_grad(x: agc.f64["N"], y: agc.f64["N"]):
    return agc.grad(misc, argnums=(0, 1))(x, y)


def trims(x):
    d = x[1:] - x[:-1]
    r = x[::-1]
    return np.sum(d * d) + np.sum(r[:2] ** 3) + np.sum(x[2:4] ** 2) + np.sum(r[1:] * r[:-1])


@agc.export
def trims_grad(x: agc.f64["N"]):
    return agc.grad(trims)(x)
