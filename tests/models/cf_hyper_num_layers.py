"""Hyperparameter ints: the number of layers (an unrolled loop) and `if`s on the layer index."""
import agc
import agc.numpy as np


@agc.export(name="depth1", layers=1)
@agc.export(name="depth2", layers=2)
@agc.export(name="depth4", layers=4)
def stack(x: agc.f32["B", 3], w: agc.f32[3, 3], layers=1):
    h = x
    for k in range(layers):
        h = h @ w
        if k % 2 == 0:
            h = np.tanh(h)
        else:
            h = h + x
        if k == layers - 1 and layers > 1:
            h = h * 0.5
    return h
