"""np.maximum / np.minimum between tensors, with scalars, and broadcasting; relu and clipping."""
import agc
import agc.numpy as np


@agc.export
def max_min(x: agc.f32[4, 3], y: agc.f32[4, 3]):
    return np.maximum(x, y), np.minimum(x, y)


@agc.export
def relu_clip(x: agc.f32[4, 3], hi: agc.f32[3]):
    return np.maximum(x, 0), np.minimum(np.maximum(x, -0.5), hi)


@agc.export
def int_max_min(a: agc.i32[6], b: agc.i32[6]):
    return np.maximum(a, b), np.minimum(a, 0)
