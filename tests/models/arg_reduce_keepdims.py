"""argmax/argmin with keepdims=True (the reduced axis kept as size 1; with axis=None every axis),
as functions and as methods, at run-time sizes. The axis form once failed IR verification."""
import agc
import numpy as np


@agc.export
def kept(x: agc.f32["N", "M"], k: agc.i32["N", "M", "K"]):
    return (np.argmax(x, axis=1, keepdims=True), np.argmin(x, axis=0, keepdims=True),
            np.argmax(x, keepdims=True), x.argmin(axis=-1, keepdims=True),
            np.argmax(k, axis=1, keepdims=True), np.argmin(k, keepdims=True))
