"""A class instantiated inside an export, holding staged tensors as attributes; methods and properties."""
import agc
import agc.numpy as np


class Affine:
    def __init__(self, w, b):
        self.w = w
        self.b = b

    def forward(self, x):
        return x @ self.w + self.b

    def n_out(self):
        return self.w.shape[1]


class Counter:
    def __init__(self):
        self.calls = 0

    def bump(self, x):
        self.calls += 1
        return x * self.calls


@agc.export
def staged_attributes(x: agc.f32[4, 3], w: agc.f32[3, 2], b: agc.f32[2]):
    layer = Affine(w, b)
    y = layer.forward(x)
    return y * layer.n_out()


@agc.export
def mutable_state(x: agc.f32[5]):
    c = Counter()
    a = c.bump(x)
    b = c.bump(x)
    d = c.bump(a + b)
    return d
