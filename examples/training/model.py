"""Softmax regression trained inside the library: `train_step` updates the variables W and b
with one SGD step, `predict` reads them. Data: 4 features, 3 classes."""
import agc
import agc.numpy as np

W = agc.Variable(np.zeros((4, 3), np.float32))
b = agc.Variable(np.zeros(3, np.float32))


def loss_fn(W, b, x, y):
    logits = x @ W + b
    logits = logits - np.max(logits, axis=1, keepdims=True)
    logp = logits - np.log(np.sum(np.exp(logits), axis=1, keepdims=True))
    return -np.mean(np.sum(logp * np.eye(3, dtype=np.float32)[y], axis=1))


@agc.export
def train_step(x: agc.f32["B", 4], y: agc.i32["B"]):
    """One SGD step on the batch; returns the loss before it."""
    loss, (gW, gb) = agc.value_and_grad(loss_fn, argnums=(0, 1))(W, b, x, y)
    W.assign(W - 0.5 * gW)
    b.assign(b - 0.5 * gb)
    return loss


@agc.export
def predict(x: agc.f32["B", 4]):
    """Class scores."""
    return x @ W + b
