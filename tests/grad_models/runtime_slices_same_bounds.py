"""Two tensors of the same run-time length sliced with the same run-time bounds, combined elementwise inside
agc.grad (a minibatch X[s:s+B] with its labels y[s:s+B]) (float32)."""
import agc
import agc.numpy as np


def loss(w, xb, yb):
    z = xb @ w
    return np.mean(np.sum(np.where(yb[:, None] == np.arange(3), -z, 0.0), axis=1) + np.log(np.sum(np.exp(z), axis=1)))


@agc.export
def minibatch_grad(w: agc.f32[4, 3], x: agc.f32["N", 4], y: agc.i64["N"], s: agc.i64[()]):
    return agc.grad(loss)(w, x[s:s + 3], y[s:s + 3])


def loss_args(w, x, y, s):
    return (w, x[s:s + 3], y[s:s + 3])


AGC_GRAD_CHECKS = {"minibatch_grad": ("loss", 0, {"args": "loss_args"})}


def agc_grad_inputs(name, rng):
    x = rng.standard_normal((8, 4)).astype(np.float32)
    y = rng.integers(0, 3, 8)
    w = (0.5 * rng.standard_normal((4, 3))).astype(np.float32)
    return [[w, x, y, np.int64(s)] for s in (0, 3, 6)]
