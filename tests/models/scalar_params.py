"""0-d parameters (agc.f32[()] etc.) and 0-d results; scalar parameters of every dtype."""
import agc
import agc.numpy as np


@agc.export
def scalar_math(a: agc.f32[()], b: agc.f32[()]):
    return a * b + a / (b * b + 1.0)


@agc.export
def scalar_dtypes(a: agc.f64[()], n: agc.i32[()], m: agc.i64[()], flag: agc.bool_[()]):
    return a * n, n + m, np.where(flag, a, -a), flag & (n > 0)


@agc.export
def scale_vector(x: agc.f32[5], s: agc.f32[()]):
    return x * s, np.sum(x) * s
