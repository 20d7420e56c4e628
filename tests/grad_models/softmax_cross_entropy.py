"""Softmax cross-entropy with integer labels one-hot by comparison with np.arange (float32), w.r.t. logits and weights."""
import agc
import agc.numpy as np


def xent(logits, labels):
    z = logits - np.max(logits, axis=1, keepdims=True)
    logp = z - np.log(np.sum(np.exp(z), axis=1, keepdims=True))
    onehot = labels[:, None] == np.arange(logits.shape[1])
    return -np.mean(np.sum(np.where(onehot, logp, 0.0), axis=1))


@agc.export
def logits_grad(logits: agc.f32["B", 5], labels: agc.i64["B"]):
    return agc.grad(xent)(logits, labels)


def model_loss(w, b, x, labels):
    onehot = (labels[:, None] == np.arange(3)).astype(x.dtype)
    z = x @ w + b
    z = z - np.max(z, axis=1, keepdims=True)
    return -np.sum(onehot * (z - np.log(np.sum(np.exp(z), axis=1, keepdims=True)))) / x.shape[0]


@agc.export
def weights_grad(w: agc.f32[4, 3], b: agc.f32[3], x: agc.f32["B", 4], labels: agc.i64["B"]):
    return agc.grad(model_loss, argnums=(0, 1))(w, b, x, labels)


AGC_GRAD_CHECKS = {
    "logits_grad": ("xent", 0),
    "weights_grad": ("model_loss", (0, 1)),
}


def agc_grad_inputs(name, rng):
    if name == "logits_grad":
        return [[rng.standard_normal((b, 5)).astype(np.float32), rng.integers(0, 5, b)] for b in (6, 2)]
    return [[rng.standard_normal((4, 3)).astype(np.float32), rng.standard_normal(3).astype(np.float32),
             rng.standard_normal((b, 4)).astype(np.float32), rng.integers(0, 3, b)] for b in (7, 3)]
