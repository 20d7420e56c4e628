"""Shapes computed from symbolic dims: arange/zeros/full of x.shape[0], reshape with products, broadcast_to(x.shape)."""
import agc
import agc.numpy as np


@agc.export
def positions(x: agc.f32["T", 4]):
    t = np.arange(x.shape[0])
    return x + t[:, None], t * 2


@agc.export
def constructors_from_shape(x: agc.f32["B", 3]):
    z = np.zeros((x.shape[0], 2), dtype=np.float32)
    f = np.full(x.shape, 0.5, dtype=np.float32)
    return np.concatenate([x, z], axis=1), f * x, np.ones(x.shape[0])


@agc.export
def broadcast_to_shape(v: agc.f32[3], x: agc.f32["B", 3]):
    return np.broadcast_to(v, x.shape) * 1.0, np.broadcast_to(v[None, :], (x.shape[0], 3)) + x
