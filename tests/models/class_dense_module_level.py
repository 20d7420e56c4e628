"""A simple class with __init__ and methods, instantiated at module level with compile-time config."""
import agc
import agc.numpy as np


class Dense:
    def __init__(self, n_in, n_out, activation=None):
        self.n_in = n_in
        self.n_out = n_out
        self.activation = activation

    def __call__(self, x, w, b):
        y = x @ w + b
        if self.activation == "relu":
            y = np.maximum(y, 0)
        elif self.activation == "tanh":
            y = np.tanh(y)
        return y

    def describe(self):
        return (self.n_in, self.n_out)


HIDDEN = Dense(8, 6, activation="relu")
OUT = Dense(6, 3, activation="tanh")


@agc.export
def two_layers(x: agc.f32["B", 8], w1: agc.f32[8, 6], b1: agc.f32[6],
               w2: agc.f32[6, 3], b2: agc.f32[3]):
    n_in, n_out = HIDDEN.describe()
    h = HIDDEN(x, w1, b1)
    return OUT(h, w2, b2) * (n_in / n_out)
