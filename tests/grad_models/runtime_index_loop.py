"""Run-time indexing xs[t] inside a staged loop over a symbolic length (an RNN), gradients w.r.t. weights and inputs (float32)."""
import agc
import agc.numpy as np


def rnn_loss(W, U, b, xs, h0):
    h = h0
    total = 0.0
    for t in range(xs.shape[0]):
        h = np.tanh(xs[t] @ W + h @ U + b)
        total = total + np.sum(h * (t + 1)) * 0.1
    return total + np.sum(h ** 2)


@agc.export
def rnn_grad(W: agc.f32[3, 4], U: agc.f32[4, 4], b: agc.f32[4], xs: agc.f32["T", "B", 3], h0: agc.f32["B", 4]):
    return agc.grad(rnn_loss, argnums=(0, 1, 2, 3, 4))(W, U, b, xs, h0)


def weighted_rows(x, w):
    acc = np.zeros_like(w)
    for i in range(x.shape[0]):
        acc = acc + x[i] * w * x[x.shape[0] - 1 - i]
    return np.sum(np.sin(acc))


@agc.export
def reversed_rows_grad(x: agc.f32["N", 4], w: agc.f32[4]):
    return agc.grad(weighted_rows, argnums=(0, 1))(x, w)


AGC_GRAD_CHECKS = {
    "rnn_grad": ("rnn_loss", (0, 1, 2, 3, 4)),
    "reversed_rows_grad": ("weighted_rows", (0, 1)),
}


def agc_grad_inputs(name, rng):
    f = lambda *s: (0.5 * rng.standard_normal(s)).astype(np.float32)
    if name == "rnn_grad":
        return [[f(3, 4), f(4, 4), f(4), f(t, b, 3), f(b, 4)] for t, b in ((5, 2), (1, 3), (8, 1))]
    return [[f(n, 4), f(4)] for n in (1, 6)]
