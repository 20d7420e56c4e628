"""A staged `for` over `enumerate(zip(a, b))` and `enumerate(zip(a), 1)` of tensors with a run-time
first axis: the index and the tuple of rows per iteration."""
import agc
import agc.numpy as np


@agc.export
def weighted_pairs(a: agc.f32["N", 3], b: agc.f32["N", 3]):
    s = np.zeros(3, dtype=np.float32)
    for i, (x, y) in enumerate(zip(a, b)):
        s = s + x * y * i
    for k, (x,) in enumerate(zip(a), 1):
        s = s - x / k
    return s
