"""Triangles and diagonals: triu, tril (with k), trace (offset, axes, dtype), diag (2-D to 1-D and
1-D to 2-D, with k), diagonal and the ndarray methods, on square matrices of static and run-time size."""
import agc
import agc.numpy as np


@agc.export
def triangles(w: agc.f32[3, 4], s: agc.f64["N", "N"], b: agc.i32[2, 3, 3], v: agc.f32[4]):
    return np.triu(w), np.tril(w, 1), np.triu(s, -1), np.tril(s), np.tril(b, -1), np.triu(v)


@agc.export
def traces(w: agc.f32[3, 4], s: agc.f64["N", "N"], b: agc.i32[2, 3, 3], m: agc.bool_[3, 3]):
    return (np.trace(w), np.trace(w, 1), np.trace(s), s.trace(-1), np.trace(b, axis1=1, axis2=2), np.trace(b),
            np.trace(m), np.trace(w, dtype=np.float64))


@agc.export
def diagonals(w: agc.f32[3, 4], s: agc.f64["N", "N"], b: agc.i32[2, 3, 3], v: agc.f32["N"], m: agc.bool_[3, 3]):
    return (np.diag(w), np.diag(w, 1), np.diag(w, -2), np.diag(s), np.diag(s, 1), np.diag(s, -2), np.diag(v),
            np.diag(v, 2), np.diag(v, -1), np.diagonal(b, 0, 1, 2), b.diagonal(1), w.diagonal(-1), np.diag(m))
