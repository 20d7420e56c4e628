"""Loops appending to lists several times per iteration: scalars, rows and matrices, rows
built by an inner loop of a run-time length, and run-time-indexed block and row assignments."""
import agc
import agc.numpy as np


@agc.export
def scalars_rows_matrices(x: agc.f32["N", 3], w: agc.f32["K", 2]):
    vals, rows, mats = [], [], []
    for i in range(x.shape[0]):
        for j in range(6):
            vals.append(x[i, j % 3] * (j + 1))
            rows.append(x[i] * (j - 2.5))
            mats.append(w * (j + 1.0) + x[i, 0])
    return np.array(vals), np.array(rows), np.stack(mats)


@agc.export
def runtime_rows(x: agc.f32["N", 3], m: agc.i64[()]):
    stacked = []
    for i in range(x.shape[0]):
        row = []
        for j in range(m):
            row.append(x[i, j % 3] * j)
        for k in range(8):
            stacked.append(np.stack(row) + k)
    return np.array(stacked)


@agc.export
def block_assign(x: agc.f64["N", 2, 3], order: agc.i64["N"]):
    out = np.zeros_like(x)
    total = np.zeros((2, 3))
    for i in range(x.shape[0]):
        k = order[i] % x.shape[0]
        out[k] = x[i] * 2.0
        out[k, 1] = x[i, 0] - 1.0
        total = total + out[k]
    return out, total
