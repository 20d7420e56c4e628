"""`for i, row in enumerate(x)` and `for a, b in zip(x, y)` over tensors with a run-time first axis."""
import agc
import agc.numpy as np


@agc.export
def weighted_rows(x: agc.f32["N", 3]):
    acc = np.zeros(3, dtype=np.float32)
    for i, row in enumerate(x):
        acc = acc + row * (i + 1)
    return acc


@agc.export
def dot_pairs(x: agc.f32["N", 3], y: agc.f32["N", 3]):
    total = np.zeros((), dtype=np.float32)
    for a, b in zip(x, y):
        total = total + np.sum(a * b)
    return total
