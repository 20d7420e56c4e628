"""Python scalars are weak (NEP 50): f32*2.5 stays f32, i32+1 stays i32, i32*1.5 -> f64, i64/2 -> f64."""
import agc
import agc.numpy as np


@agc.export
def weak_with_f32(x: agc.f32[5]):
    return x * 2.5, x + 1, 3 - x, x > 0.5, x ** 2


@agc.export
def weak_with_ints(a: agc.i32[5], b: agc.i64[5]):
    return a + 1, a * 1.5, b / 2, a // 2, b % 3, a - True


@agc.export
def weak_with_bool(m: agc.bool_[5]):
    return m + 1, m * 2.0, m & True
