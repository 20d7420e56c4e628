"""agc.grad / agc.value_and_grad inside exports (float64; eager oracle: autograd)."""
import agc
import agc.numpy as np


def mse(w, b, x, y):
    pred = np.tanh(x @ w + b)
    return np.mean((pred - y) ** 2)


@agc.export
def mse_grads(w: agc.f64[3, 2], b: agc.f64[2], x: agc.f64["N", 3], y: agc.f64["N", 2]):
    return agc.grad(mse, argnums=(0, 1))(w, b, x, y)


@agc.export
def sgd_step(w: agc.f64[3, 2], b: agc.f64[2], x: agc.f64["N", 3], y: agc.f64["N", 2]):
    loss, (gw, gb) = agc.value_and_grad(mse, argnums=(0, 1))(w, b, x, y)
    return loss, w - 0.1 * gw, b - 0.1 * gb


def softmax_xent(logits, onehot):
    z = logits - np.max(logits, axis=1, keepdims=True)
    return -np.sum(onehot * (z - np.log(np.sum(np.exp(z), axis=1, keepdims=True)))) / logits.shape[0]


@agc.export
def xent_input_grad(logits: agc.f64["N", 4], onehot: agc.f64["N", 4]):
    return agc.grad(softmax_xent)(logits, onehot)
