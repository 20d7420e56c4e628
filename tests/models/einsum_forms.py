"""np.einsum with '...' (broadcast dims, implicit and explicit output, size-1 broadcasting, a
diagonal under the ellipsis, a run-time batch) and the sublist form (ints and Ellipsis)."""
import agc
import agc.numpy as np


@agc.export
def ellipsis(a: agc.f32[2, 3, 4], b: agc.f32[4, 5], c: agc.f32[2, 1, 3, 4], d: agc.f32[5, 4, 6], x: agc.f32["B", 3, 3]):
    return (
        np.einsum("...ij,jk->...ik", a, b),
        np.einsum("...i->...", a),
        np.einsum("...ij,...jk", c, d),
        np.einsum("...ij,...jk->...ik", c, d),
        np.einsum("i...,i...", a, a),
        np.einsum("...ii->...i", x),
        np.einsum("b...->...", x),
        np.einsum("...", a),
        np.einsum("ij...->...", a),
        np.einsum("...,...", a, b[0, :4]),
        np.einsum("bij,bjk->bik", x, x, optimize=True),
    )


@agc.export
def sublists(a: agc.f32[2, 3, 4], b: agc.f32[4, 5], x: agc.f32["B", 3]):
    return (
        np.einsum(a, [0, 1, 2], b, [2, 3], [0, 1, 3]),
        np.einsum(a, [0, 1, 2], b, [2, 3]),
        np.einsum(x, [0, 26]),
        np.einsum(x, [Ellipsis, 0], x, [Ellipsis, 0], [Ellipsis]),
        np.einsum(a, [Ellipsis, 30]),
        np.einsum(b, [1, 0]),
    )
