"""An MLP whose layers are objects built from a config list inside the export, looped over at compile time."""
import agc
import agc.numpy as np

SIZES = [4, 8, 8, 3]


class Layer:
    def __init__(self, w, b, last=False):
        self.w, self.b, self.last = w, b, last

    def __call__(self, x):
        y = x @ self.w + self.b
        return y if self.last else np.tanh(y)


@agc.export
def mlp(x: agc.f32["B", 4], w0: agc.f32[4, 8], b0: agc.f32[8], w1: agc.f32[8, 8], b1: agc.f32[8],
        w2: agc.f32[8, 3], b2: agc.f32[3]):
    params = [(w0, b0), (w1, b1), (w2, b2)]
    layers = [Layer(w, b, last=(i == len(params) - 1)) for i, (w, b) in enumerate(params)]
    for layer in layers:
        x = layer(x)
    return x
