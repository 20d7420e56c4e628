"""Staged loop bodies holding long chains of nested staged loops and `if`s that thread the same
values (the backend breaks such chains for MLIR's bufferization, fuzz finding F21, was O8): 24 inner loops
appending to one list, 12 `if`s appending rows, 10 inner loops updating a static matrix in place,
`if`s choosing between a parameter and a running value (which must stay unchanged), and rows of
a run-time length appended 10 times per iteration to a list whose rows start empty (a loop
result used only by its chain break once let MLIR's canonicalizer type the loop's list as
always empty)."""
import agc
import agc.numpy as np


@agc.export
def appends_in_inner_loops(x: agc.f32["N", 3]):
    vals = []
    for i in range(x.shape[0]):
        for j in range(24):
            for _v in x:
                vals.append(x[i, j % 3] * (j + 1))
    return np.array(vals), len(vals)


@agc.export
def rows_under_branches(x: agc.f64["N", 4]):
    rows = []
    for i in range(x.shape[0]):
        for k in range(12):
            if x[i, k % 4] > 0.1 * k:
                rows.append(x[i] * k)
            else:
                rows.append(x[i] - k)
    return np.stack(rows)


@agc.export
def matrix_updates_in_inner_loops(x: agc.f32["N", 3]):
    acc = np.zeros((4, 3), dtype=np.float32)
    for i in range(x.shape[0]):
        for j in range(10):
            for r in range(x.shape[0]):
                acc[j % 4, r % 3] = acc[j % 4, r % 3] + x[r, (i + r) % 3] * (j - 4.5)
    return acc


@agc.export
def choose_parameter_or_running(x: agc.f32["N", 5]):
    cur = x[0]
    total = np.zeros(5, dtype=np.float32)
    for i in range(x.shape[0]):
        for k in range(10):
            if x[i, k % 5] > 0.5:
                cur = x[i]
            else:
                cur = cur * 0.5 + k
            total = total + cur
    return total, cur, x


@agc.export
def runtime_rows(x: agc.f32["N", 3], m: agc.i64[()]):
    stacked = []
    for i in range(x.shape[0]):
        row = []
        for j in range(m % 5):
            row.append(x[i, j % 3] * j)
        for k in range(10):
            stacked.append(np.stack(row) + k)
    return np.array(stacked)
