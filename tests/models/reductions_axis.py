"""sum/mean/max/min with axis= (int, negative, tuple) and keepdims=, as functions and methods."""
import agc
import agc.numpy as np


@agc.export
def along_axes(x: agc.f32[3, 4, 5]):
    return (np.sum(x, axis=0), np.mean(x, axis=1), np.max(x, axis=2),
            np.min(x, axis=-1), np.sum(x, axis=(0, 2)), x.mean(axis=(-1, -2)))


@agc.export
def keepdims(x: agc.f32[3, 4]):
    return (np.sum(x, axis=1, keepdims=True), x.max(axis=0, keepdims=True),
            np.mean(x, axis=-1, keepdims=True), np.min(x, keepdims=True))


@agc.export
def int_reductions(n: agc.i32[4, 5]):
    return np.sum(n, axis=0), np.max(n, axis=1), np.mean(n, axis=1), n.min(axis=0)


@agc.export
def centered(x: agc.f32["B", 6]):
    return x - x.mean(axis=1, keepdims=True)
