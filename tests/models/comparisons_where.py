"""Comparisons producing bool tensors, np.where with tensors and scalars, comparisons against scalars."""
import agc
import agc.numpy as np


@agc.export
def compare_all(x: agc.f32[4, 3], y: agc.f32[4, 3]):
    return x < y, x <= y, x > y, x >= y, x == y, x != y


@agc.export
def where_select(x: agc.f32[4, 3], y: agc.f32[4, 3]):
    return np.where(x > y, x, y), np.where(x > 0, x, 0.0), np.where(y < 0.5, -1.0, 1.0)


@agc.export
def clip_by_where(x: agc.f32[10], lo: agc.f32[()], hi: agc.f32[()]):
    return np.where(x < lo, lo, np.where(x > hi, hi, x))


def agc_test_inputs(export_name, rng, dims):
    if export_name == "clip_by_where":
        return [rng.standard_normal(10).astype(np.float32), np.float32(-0.5), np.float32(0.7)]
    x = rng.integers(-2, 3, size=(4, 3)).astype(np.float32)   # small ints so == and != see equal pairs
    y = rng.integers(-2, 3, size=(4, 3)).astype(np.float32)
    return [x, y]
