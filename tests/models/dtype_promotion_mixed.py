"""Mixed-dtype binary operations between tensors follow numpy's promotion table (i32+f32 -> f64, ...)."""
import agc
import agc.numpy as np


@agc.export
def int_float(a: agc.i32[4], b: agc.f32[4], c: agc.i64[4], d: agc.f64[4]):
    return a + b, c * b, a - d, b + d, a + c, c / d


@agc.export
def with_bool(m: agc.bool_[4], a: agc.i32[4], b: agc.f32[4]):
    return m + a, m * b, m + m, a * m - 1


@agc.export
def comparisons_mixed(a: agc.i32[4], b: agc.f32[4], c: agc.i64[4]):
    return a < b, c >= a, np.where(a > 0, a, b), np.maximum(a, c)
