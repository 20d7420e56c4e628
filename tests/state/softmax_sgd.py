"""Softmax regression trained inside the library: variables read by `predict`, assigned by `train_step`."""
import agc
import agc.numpy as np

W = agc.Variable(np.zeros((6, 3), np.float32))
b = agc.Variable(np.zeros(3, np.float32))
steps = agc.Variable(np.zeros((), np.int64))


def loss_fn(W, b, x, y):
    logits = x @ W + b
    logits = logits - np.max(logits, axis=1, keepdims=True)
    logp = logits - np.log(np.sum(np.exp(logits), axis=1, keepdims=True))
    return -np.mean(np.sum(logp * np.eye(3, dtype=np.float32)[y], axis=1))


@agc.export
def predict(x: agc.f32["B", 6]):
    return x @ W + b


@agc.export
def train_step(x: agc.f32["B", 6], y: agc.i32["B"]):
    loss, (gW, gb) = agc.value_and_grad(loss_fn, argnums=(0, 1))(W, b, x, y)
    W.assign(W - 0.5 * gW)
    b.assign(b - 0.5 * gb)
    steps.assign(steps + 1)
    return loss


@agc.export
def step_count():
    return steps
