"""np.expand_dims, np.squeeze (with and without axis), np.broadcast_to, indexing with None."""
import agc
import agc.numpy as np


@agc.export
def expand(x: agc.f32[3, 4]):
    return np.expand_dims(x, 0), np.expand_dims(x, axis=-1), x[:, None, :], x[None]


@agc.export
def squeeze(x: agc.f32[1, 3, 1, 4]):
    return np.squeeze(x), np.squeeze(x, axis=0), x.squeeze(axis=2)


@agc.export
def broadcast(v: agc.f32[4], c: agc.f32[3, 1]):
    return np.broadcast_to(v, (3, 4)), np.broadcast_to(c, (3, 4)) + v


@agc.export
def outer_by_broadcast(a: agc.f32["N"], b: agc.f32["M"]):
    return a[:, None] * b[None, :]
