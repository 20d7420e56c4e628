"""axis=None given explicitly reduces over everything; keepdims with axis=None keeps every dim as 1."""
import agc
import agc.numpy as np


@agc.export
def axis_none(x: agc.f32[3, 4]):
    return np.sum(x, axis=None), np.max(x, axis=None, keepdims=True), x.mean(axis=None), np.argmax(x, axis=None)
