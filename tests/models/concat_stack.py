"""np.concatenate along various axes (incl. negative) and np.stack with axis=, of several dtypes."""
import agc
import agc.numpy as np


@agc.export
def concatenates(a: agc.f32[2, 3], b: agc.f32[4, 3], c: agc.f32[2, 5]):
    return np.concatenate([a, b]), np.concatenate((a, c), axis=1), np.concatenate([a, a, c], axis=-1)


@agc.export
def stacks(a: agc.f32[3], b: agc.f32[3]):
    return np.stack([a, b]), np.stack((a, b, a), axis=1), np.stack([a, b], axis=-1)


@agc.export
def mixed_dtype_concat(a: agc.i32[3], b: agc.f32[2]):
    return np.concatenate([a, b]), np.stack([a, a * 2])


@agc.export
def symbolic_concat(x: agc.f32["B", 3], y: agc.f32["B", 2]):
    return np.concatenate([x, y, x], axis=1)
