"""Gradient exports called many times by the leak test: a dense layer, and a staged loop inside the differentiated function (float32)."""
import agc
import agc.numpy as np


def dense_loss(w, x):
    return np.sum(np.tanh(x @ w) ** 2)


@agc.export
def mlp_grad(w: agc.f32[64, 64], x: agc.f32["B", 64]):
    return agc.grad(dense_loss)(w, x)


def loop_loss(w, xs):
    h = xs[0] * 0.0
    outs = []
    for t in range(xs.shape[0]):
        h = np.tanh(xs[t] + h @ w * 0.1)
        outs.append(h)
    return np.sum(np.stack(outs) ** 2)


@agc.export
def loop_grad(w: agc.f32[64, 64], xs: agc.f32["T", 64]):
    return agc.grad(loop_loss)(w, xs)


AGC_GRAD_CHECKS = {"mlp_grad": ("dense_loss", 0), "loop_grad": ("loop_loss", 0)}
