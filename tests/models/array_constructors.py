"""np.zeros/ones/full/zeros_like/ones_like/arange with shapes and dtype=, combined with parameters."""
import agc
import agc.numpy as np


@agc.export
def constructors(x: agc.f32[2, 3]):
    return (np.zeros((2, 3)), np.ones(3, dtype=np.float32), np.full((2, 3), 7.5, dtype=np.float32),
            np.zeros_like(x), np.ones_like(x) + x, np.full((2, 1), 3, dtype=np.int32))


@agc.export
def aranges(x: agc.f32[5]):
    return (np.arange(5), np.arange(2, 12, 2, dtype=np.float32), np.arange(5.0) * x,
            np.arange(5, dtype=np.int32) + 1, np.arange(0.5, 2.5, 0.5))


@agc.export
def like_with_dtype(x: agc.f32["B", 4], n: agc.i64["B"]):
    return np.zeros_like(x, dtype=np.int32), np.ones_like(n), np.full_like(x, 2.0) * x
