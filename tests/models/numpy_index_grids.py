"""Constant index grids: np.triu_indices / np.tril_indices (with k and m) used to gather a matrix's
triangle, np.indices (dense, sparse, dtype=) and np.diagflat, against numpy."""
import agc
import agc.numpy as np


@agc.export
def triangles(a: agc.f32[4, 4], s: agc.f64[5, 3]):
    upper = a[np.triu_indices(4)]
    strict_lower = a[np.tril_indices(4, -1)]
    rows, cols = np.triu_indices(5, k=1, m=3)
    return upper, strict_lower, s[rows, cols], rows, cols, np.tril_indices(3, k=2)[1], a.T[np.tril_indices(4)] - upper


@agc.export
def grids(x: agc.f32[3, 4], v: agc.f64["N"]):
    g = np.indices((3, 4))
    r, c = np.indices((3, 4), sparse=True)
    return (g, x * g[0] + g[1], r + c * 10, np.indices((2,), dtype=np.float32), np.indices((2, 1, 3)).sum(axis=0),
            np.diagflat(v), np.diagflat(x[:2, :2], k=1), np.diagflat([1.0, 2.0], -1))
