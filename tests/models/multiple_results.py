"""Several results of different dtypes and ranks, returned as a tuple, including a reused value."""
import agc
import agc.numpy as np


@agc.export
def four_results(x: agc.f32[3, 4]):
    total = np.sum(x, axis=1)
    return total, np.argmax(x, axis=1), x > 0, total.astype(np.float64) * 2


@agc.export
def same_value_twice(x: agc.f32[4]):
    y = x * 2
    return y, y, x


@agc.export
def input_passthrough(x: agc.f32[2, 2], n: agc.i32[3]):
    return n, x


@agc.export
def scaled_pair(x: agc.f32["N"]):
    return x * 2, x + 1
