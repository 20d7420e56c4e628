"""A two-layer MLP classifier (relu, softmax cross-entropy with one-hot labels by comparison with np.arange, L2): all parameter gradients (float32)."""
import agc
import agc.numpy as np


def loss(w1, b1, w2, b2, x, labels):
    h = np.maximum(x @ w1 + b1, 0.0)
    z = h @ w2 + b2
    z = z - np.max(z, axis=1, keepdims=True)
    logp = z - np.log(np.sum(np.exp(z), axis=1, keepdims=True))
    onehot = labels[:, None] == np.arange(4)
    return -np.sum(np.where(onehot, logp, 0.0)) / x.shape[0] + 1e-3 * (np.sum(w1 * w1) + np.sum(w2 * w2))


@agc.export
def mlp_grad(w1: agc.f32[6, 8], b1: agc.f32[8], w2: agc.f32[8, 4], b2: agc.f32[4], x: agc.f32["B", 6], labels: agc.i64["B"]):
    return agc.value_and_grad(loss, argnums=(0, 1, 2, 3))(w1, b1, w2, b2, x, labels)


AGC_GRAD_CHECKS = {"mlp_grad": ("loss", (0, 1, 2, 3), {"value": True})}


def agc_grad_inputs(name, rng):
    f = lambda *s: (0.5 * rng.standard_normal(s)).astype(np.float32)
    return [[f(6, 8), f(8), f(8, 4), f(4), f(b, 6), rng.integers(0, 4, b)] for b in (10, 3)]
