"""Simple classes (a layer object with `__call__` and a method) used inside staged loops."""
import agc
import agc.numpy as np


class Cell:
    def __init__(self, w, u, scale=1.0):
        self.w = w
        self.u = u
        self.scale = scale

    def __call__(self, x, h):
        return np.tanh(x @ self.w + h @ self.u) * self.scale

    def reset(self, h):
        return h * 0


@agc.export
def run_cell(xs: agc.f32["T", 3], w: agc.f32[3, 4], u: agc.f32[4, 4], resets: agc.bool_["T"]):
    cell = Cell(w, u, scale=0.9)
    h = np.zeros(4, dtype=np.float32)
    for t in range(xs.shape[0]):
        if resets[t]:
            h = cell.reset(h)
        h = cell(xs[t], h)
    return h


class Counter:
    def __init__(self):
        self.calls = 0

    def bump(self, x):
        self.calls += 1           # compile-time state: counts the tracing of the call, once
        return x + 1


@agc.export
def method_in_loop(x: agc.f32["N"]):
    c = Counter()
    for i in range(x.shape[0]):
        x = c.bump(x)
    return x
