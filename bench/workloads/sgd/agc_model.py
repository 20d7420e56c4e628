"""Softmax regression trained by SGD, the whole loop (a staged loop of value_and_grad steps) in one export."""
import agc
import agc.numpy as np

D, C, BATCH, LR = 784, 10, 200, 0.01


def loss_fn(w, b, x, y):
    z = x @ w + b
    s = z - np.max(z, axis=1, keepdims=True)
    logp = s - np.log(np.sum(np.exp(s), axis=1, keepdims=True))
    onehot = (y[:, None] == np.arange(C)).astype(np.float32)
    return -np.sum(onehot * logp) / BATCH


@agc.export
def train(w: agc.f32[D, C], b: agc.f32[C], xs: agc.f32["NB", BATCH, D], ys: agc.i32["NB", BATCH],
          steps: agc.i64[()]):
    nb = xs.shape[0]
    loss = np.float32(0.0)
    for s in range(steps):
        k = s % nb
        loss, (gw, gb) = agc.value_and_grad(loss_fn, argnums=(0, 1))(w, b, xs[k], ys[k])
        w = w - LR * gw
        b = b - LR * gb
    return w, b, loss
