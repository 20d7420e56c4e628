"""Gradients through the wider numpy surface: inverse trig, hyperbolic and log functions,
logaddexp, reciprocal; roll (static and run-time axis length), tile, repeat, pad, swapaxes,
moveaxis, hstack, vstack, split, flip; triu, tril, trace, diag, cumsum; einsum, tensordot and
np.linalg.norm. Float64, with a run-time dim."""
import agc
import agc.numpy as np


def loss_elementwise(x, y):
    s = np.tanh(x) * 0.9
    a = np.abs(y) + 0.5
    return (np.sum(np.arcsin(s) * np.arccos(s * 0.5)) + np.sum(np.arctan(x * y)) + np.sum(np.arctan2(x, a))
            + np.sum(np.sinh(x) * np.cosh(y * 0.5)) + np.sum(np.log2(a) + np.log10(a * 3)) + np.sum(np.exp2(x * 0.5))
            + np.sum(np.logaddexp(x, y) * y) + np.sum(np.reciprocal(a)))


@agc.export
def elementwise_grad(x: agc.f64["N", 3], y: agc.f64["N", 3]):
    return agc.grad(loss_elementwise, argnums=(0, 1))(x, y)


def loss_shape(x, w):
    r = np.roll(x, 1, axis=0) * x + np.roll(x, -1, axis=1) * 2.0
    t = np.tile(w[0], (2, 1)) * np.repeat(w[1:], 1, axis=0)
    p = np.pad(x, ((1, 0), (0, 2)), "constant", constant_values=0.5)
    s = np.swapaxes(x, 0, 1) @ x + np.moveaxis(w, 0, 1)
    h = np.hstack([x, x * w[2, 0]]) ** 2
    v = np.vstack([x, w]) ** 2
    a, b, c = np.split(w, 3, axis=1)
    return (np.sum(r * r) + np.sum(t * t) + np.sum(p * p) * 0.5 + np.sum(s * s) + np.sum(np.repeat(x, 2) ** 3)
            + np.sum(h) + np.sum(v[1:] * v[:-1]) + np.sum(a * b - c))


@agc.export
def shape_grad(x: agc.f64["N", 3], w: agc.f64[3, 3]):
    return agc.grad(loss_shape, argnums=(0, 1))(x, w)


def loss_flip(x):
    return np.sum(np.flip(x, 0) * x ** 2) + np.sum(np.flip(x) * np.cos(x))


def eager_flip(x):
    def written_with_slices(x):
        return np.sum(x[::-1] * x ** 2) + np.sum(x[::-1, ::-1] * np.cos(x))

    return agc.grad(written_with_slices)(x)


@agc.export
def flip_grad(x: agc.f64["N", 3]):
    return agc.grad(loss_flip)(x)


def loss_diag(w, v):
    m = np.triu(w) @ np.tril(w, -1) + np.diag(v) * 2.0
    return (np.trace(m) + np.sum(np.diag(w) ** 2) + np.sum(np.tril(np.diag(v, 1), 1) ** 2) * 0.5
            + np.sum(np.cumsum(w, axis=1) ** 2) + np.sum(np.cumsum(v) * v))


@agc.export
def diag_grad(w: agc.f64["N", "N"], v: agc.f64["N"]):
    return agc.grad(loss_diag, argnums=(0, 1))(w, v)


def loss_contract(x, w, t):
    e = np.einsum("ij,jk->ik", x, w) + np.einsum("ij,kj", x, w)
    f = np.einsum("bij,jk->bik", t, w)
    g = np.tensordot(t, w, axes=([2], [0]))
    return (np.sum(e ** 2) + np.sum(f * g) + np.trace(w) + np.sum(np.einsum("ni,ij,jk->nk", x, w, w))
            + np.linalg.norm(x) + np.sum(np.linalg.norm(t, axis=2)) + np.sum(np.tensordot(x, w, 1) * x))


@agc.export
def contract_grad(x: agc.f64["N", 3], w: agc.f64[3, 3], t: agc.f64[2, 4, 3]):
    return agc.grad(loss_contract, argnums=(0, 1, 2))(x, w, t)


AGC_GRAD_CHECKS = {
    "elementwise_grad": ("loss_elementwise", (0, 1)),
    "shape_grad": ("loss_shape", (0, 1)),
    "flip_grad": ("loss_flip", 0, {"eager": "eager_flip"}),
    "diag_grad": ("loss_diag", (0, 1)),
    "contract_grad": ("loss_contract", (0, 1, 2)),
}
