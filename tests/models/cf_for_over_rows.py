"""`for row in x` over a tensor whose first axis is a run-time size."""
import agc
import agc.numpy as np


@agc.export
def sum_rows(x: agc.f32["N", 3]):
    acc = np.zeros(3, dtype=np.float32)
    for row in x:
        acc = acc + row * row
    return acc


@agc.export
def max_row_norm(x: agc.f64["N", 4]):
    best = np.zeros((), dtype=np.float64)
    for row in x:
        n = np.sqrt(np.sum(row * row))
        if n > best:
            best = n
    return best


@agc.export
def scalar_elements(v: agc.i64["N"]):
    pos = 0
    neg = 0
    for e in v:
        if e > 0:
            pos += e
        else:
            neg -= e
    return np.asarray(pos), np.asarray(neg)


@agc.export
def rows_of_3d(x: agc.f32["N", 2, 3]):
    acc = np.zeros((3, 3), dtype=np.float32)
    for m in x:
        acc = acc + m.T @ m
    return acc
