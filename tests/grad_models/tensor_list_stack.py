"""Tensor lists: `outputs.append(h)` in a staged loop, then `np.stack`, inside the differentiated function (float32)."""
import agc
import agc.numpy as np


def seq_loss(W, U, xs, h0):
    h = h0
    outputs = []
    for t in range(xs.shape[0]):
        h = np.tanh(xs[t] @ W + h @ U)
        outputs.append(h)
    hs = np.stack(outputs)                      # [T,B,H]
    return np.sum(hs * np.arange(1, 5)) + np.sum(hs[-1] ** 2)


@agc.export
def rnn_outputs_grad(W: agc.f32[2, 4], U: agc.f32[4, 4], xs: agc.f32["T", "B", 2], h0: agc.f32["B", 4]):
    return agc.grad(seq_loss, argnums=(0, 1, 2, 3))(W, U, xs, h0)


def running_products(x, ws):
    acc = x
    items = []
    for i in range(ws.shape[0]):
        acc = acc * np.cos(ws[i] + i)
        items.append(acc)
    s = np.stack(items, axis=1)                   # [3,T]
    return np.sum(s * s)


@agc.export
def stack_axis1_grad(x: agc.f32[3], ws: agc.f32["T", 3]):
    return agc.grad(running_products, argnums=(0, 1))(x, ws)


AGC_GRAD_CHECKS = {
    "rnn_outputs_grad": ("seq_loss", (0, 1, 2, 3)),
    "stack_axis1_grad": ("running_products", (0, 1)),
}


def agc_grad_inputs(name, rng):
    f = lambda *s: (0.6 * rng.standard_normal(s)).astype(np.float32)
    if name == "rnn_outputs_grad":
        return [[f(2, 4), f(4, 4), f(t, b, 2), f(b, 4)] for t, b in ((4, 3), (1, 2), (7, 1))]
    return [[f(3), f(t, 3)] for t in (1, 5)]
