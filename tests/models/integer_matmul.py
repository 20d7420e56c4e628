"""matmul over integer and mixed dtypes: i32 @ i32 stays i32, i64 @ i32 is i64, i32 @ f32 is f64."""
import agc
import agc.numpy as np


@agc.export
def int_matmul(a: agc.i32[3, 4], b: agc.i32[4, 5], c: agc.i64[5, 2]):
    ab = a @ b
    return ab, ab @ c, np.dot(a[0], b[:, 1])


@agc.export
def mixed_matmul(a: agc.i32[3, 4], w: agc.f32[4, 2], d: agc.f64[2, 2]):
    return a @ w, (a @ w) @ d, w.T @ a.T
