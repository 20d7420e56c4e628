"""State from C (tests/c/state.c, state_threads.c, state.cpp): a softmax regression trained inside
the library (W, b and a step counter, read by `predict`, assigned by `train_step`) and a level
every element of which is equal at every step (a reader that saw `bump` half done would see two
values)."""
import agc
import agc.numpy as np

FEATURES = 6
CLASSES = 3

W = agc.Variable(np.zeros((FEATURES, CLASSES), np.float32))
b = agc.Variable(np.zeros(CLASSES, np.float32))
steps = agc.Variable(np.zeros((), np.int64))
level = agc.Variable(np.zeros(4096, np.float64), name="level")


def loss_fn(W, b, x, y):
    logits = x @ W + b
    logits = logits - np.max(logits, axis=1, keepdims=True)
    logp = logits - np.log(np.sum(np.exp(logits), axis=1, keepdims=True))
    return -np.mean(np.sum(logp * np.eye(CLASSES, dtype=np.float32)[y], axis=1))


@agc.export
def predict(x: agc.f32["B", 6]):
    return x @ W + b


@agc.export
def train_step(x: agc.f32["B", 6], y: agc.i32["B"]):
    loss, (gW, gb) = agc.value_and_grad(loss_fn, argnums=(0, 1))(W, b, x, y)
    W.assign(W - 0.2 * gW)
    b.assign(b - 0.2 * gb)
    steps.assign(steps + 1)
    return loss


@agc.export
def step_count():
    return steps


@agc.export
def read_level():
    return level * 1.0


@agc.export
def bump(by: agc.f64[()]):
    level.assign(level + by)
    return np.sum(level)
