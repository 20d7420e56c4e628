"""Helper functions with default arguments, keyword arguments (also keyword-only) in any order."""
import agc
import agc.numpy as np


def affine(x, w, b=None, scale=1.0):
    y = x @ w
    if b is not None:
        y = y + b
    return y * scale


def weighted(x, y, weight=2.0, *, shift=0.0):
    return (x + y) * weight + shift


@agc.export
def defaults(x: agc.f32[4, 3], w: agc.f32[3, 5], b: agc.f32[5]):
    a = affine(x, w)
    c = affine(x, w, b)
    d = affine(x, w, scale=0.25, b=b)
    return a + c + d


@agc.export
def keyword_only(x: agc.f32[4], y: agc.f32[4]):
    return weighted(x, y), weighted(y=y, x=x, weight=-1.0), weighted(x, y, 0.5, shift=1.0)
