"""Tuple packing/unpacking, swapping, nested targets, returning several results."""
import agc
import agc.numpy as np


def split_stats(x):
    return np.min(x, axis=0), np.max(x, axis=0), np.mean(x, axis=0)


@agc.export
def stats(x: agc.f32["N", 3]):
    lo, hi, mean = split_stats(x)
    return lo, hi, mean


@agc.export
def swap(a: agc.f32[2], b: agc.f32[2], c: agc.f32[2]):
    a, b = b, a
    first, second, third = (a, b, c)
    return first - second * third


@agc.export
def nested_tuple(x: agc.f32[3]):
    pair = ((x, x * 2), x * 3)
    (p, q), r = pair
    return p + q + r
