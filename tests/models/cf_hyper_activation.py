"""Hyperparameter `if`/`elif` on a string bound by `@agc.export(name=..., activation=...)`: the branches vanish."""
import agc
import agc.numpy as np


def activate(y, activation):
    if activation == "relu":
        return np.maximum(y, 0)
    elif activation == "tanh":
        return np.tanh(y)
    elif activation == "sigmoid":
        return 1.0 / (1.0 + np.exp(-y))
    return y


@agc.export(name="dense_relu", activation="relu")
@agc.export(name="dense_tanh", activation="tanh")
@agc.export(name="dense_sigmoid", activation="sigmoid")
@agc.export(name="dense_linear", activation=None)
def dense(x: agc.f32["B", 4], w: agc.f32[4, 3], activation="relu"):
    return activate(x @ w, activation)
