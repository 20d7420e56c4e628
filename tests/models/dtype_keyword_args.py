"""dtype= on reductions and constructors, keepdims=, axis= given by keyword and by position."""
import agc
import agc.numpy as np


@agc.export
def sum_with_dtype(x: agc.f32[4, 3], n: agc.i32[4, 3]):
    return np.sum(x, axis=0, dtype=np.float64), np.sum(n, dtype=np.int64), n.sum(axis=1, dtype=np.float32)


@agc.export
def positional_axis(x: agc.f32[4, 3]):
    return np.sum(x, 1), np.mean(x, 0, keepdims=True), np.max(x, -1)


@agc.export
def mean_dtype(n: agc.i64[6]):
    return np.mean(n, dtype=np.float32), np.zeros(3, dtype=np.int64) + n[:3]
