"""Slices of static axes that select nothing (`x[3:]` of 3 rows, `x[:, 1:]` of one column): an
empty array of the right shape, also as an operand (numpy's semantics); and a run-time row of
an array with no columns (`x[i]` of an `[N, 0]` array; fuzz finding F23). These were an internal
error (MLIR rejects a view at the end of an axis)."""
import agc
import agc.numpy as np


@agc.export
def empty_views(x: agc.f32[3, 1], y: agc.f32["N", 2]):
    return (x[:, 1:], x[3:], x[:, 1:] + 1.0, np.concatenate([x, x[:, 1:]], axis=1), y[:, 2:],
            x[5:, :0].sum(), x[1:1])


@agc.export
def rows_of_no_columns(x: agc.f32["N", 0], y: agc.f64["N", 2, 0]):
    return x[x.shape[0] // 2], x[-1] + 2.0, y[0], y[1, 1], np.concatenate([x[0], x[1]])
