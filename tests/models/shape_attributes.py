"""x.shape, x.ndim and len(x) used at compile time with static and symbolic dims."""
import agc
import agc.numpy as np


@agc.export
def flatten_static(x: agc.f32[2, 3, 4]):
    n = x.shape[0]
    rest = x.shape[1] * x.shape[2]
    return x.reshape(n, rest) * x.ndim


@agc.export
def flatten_symbolic(x: agc.f32["B", 3, 4]):
    return x.reshape(x.shape[0], -1)


@agc.export
def by_ndim(x: agc.f32[3, 4], v: agc.f32[4]):
    out = x if x.ndim == 2 else x[None]
    return out * len(v) + len(x) + v.shape[-1]


@agc.export
def shape_tuple_ops(x: agc.f32["B", 6]):
    b, f = x.shape
    return np.reshape(x, (b, f // 2, 2)).sum(axis=-1)
