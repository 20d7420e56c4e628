"""Contractions and running sums: tensordot (int axes and axis lists), einsum (explicit and
implicit, traces, transposes, batch products, three operands), np.linalg.norm (vectors, matrices,
axis, keepdims), cumsum (axis or flattened, dtypes) and count_nonzero."""
import agc
import agc.numpy as np


@agc.export
def tensordots(x: agc.f32["N", 3], w: agc.f32[3, 3], t: agc.f32[2, 3, 4], u: agc.f32[4, 3, 5]):
    return (np.tensordot(x, w, 1), np.tensordot(w, w), np.tensordot(w, w, ([0, 1], [1, 0])),
            np.tensordot(t, u, axes=([1, 2], [1, 0])), np.tensordot(t, w, axes=([1], [0])), np.tensordot(x[0], w, 0))


@agc.export
def einsums(x: agc.f32["N", 3], w: agc.f32[3, 3], t: agc.f32["B", 3, 4], u: agc.f32["B", 4, 2]):
    return (np.einsum("ij,jk->ik", x, w), np.einsum("ij,kj", x, w), np.einsum("ii", w), np.einsum("ii->i", w),
            np.einsum("ij->ji", x), np.einsum("ij->", x), np.einsum("ij", x), np.einsum("ji", x),
            np.einsum("bij,bjk->bik", t, u), np.einsum("ni,ij,jk->nk", x, w, w), np.einsum("ij,ij->i", x, x),
            np.einsum("i,j->ij", w[0], x[:, 0]), np.einsum("bij,jk", t, np.ones((4, 2), dtype=np.float32)),
            np.einsum("i,i", w[0], w[1]), np.einsum("ij,jk,kl", w, w, w))


@agc.export
def einsum_ints(a: agc.i64["N", 3], b: agc.i32[3, 2]):
    return np.einsum("ij,jk->ik", a, b), np.einsum("ij->j", a)


@agc.export
def norms(x: agc.f32["N", 3], w: agc.f64[3, 3], k: agc.i32[4]):
    return (np.linalg.norm(x), np.linalg.norm(x, axis=1), np.linalg.norm(x, axis=0, keepdims=True),
            np.linalg.norm(w, axis=(0, 1)), np.linalg.norm(x, keepdims=True), np.linalg.norm(k), np.linalg.norm(w[0]))


@agc.export
def cumsums(x: agc.f32["N", 3], w: agc.f64[3, 3], k: agc.i32[4], b: agc.bool_["N"]):
    return (np.cumsum(x), np.cumsum(x, axis=0), x.cumsum(1), np.cumsum(w, axis=-1), np.cumsum(k), np.cumsum(b),
            np.cumsum(k, dtype=np.float32), w.cumsum())


@agc.export
def counts(x: agc.f32["N", 3], k: agc.i32[4], b: agc.bool_["N"]):
    return (np.count_nonzero(x > 0), np.count_nonzero(x > 0, axis=0), np.count_nonzero(k), np.count_nonzero(b),
            np.count_nonzero(x, axis=1, keepdims=True))
