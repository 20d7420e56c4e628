"""Arithmetic on run-time sizes used as loop bounds and as values (`range(A * B)`, `np.asarray(N * 100)`)."""
import agc
import agc.numpy as np


@agc.export
def flat_walk(x: agc.f32["A", "B"]):
    acc = np.zeros((), dtype=np.float32)
    for i in range(x.shape[0] * x.shape[1]):
        acc = acc + x[i // x.shape[1], i % x.shape[1]] * (i % 3)
    return acc


@agc.export
def size_value(x: agc.f32["N", 2]):
    return np.asarray(x.shape[0] * 100), np.asarray(x.shape[0]) + x.shape[1]


@agc.export
def size_in_loop_state(x: agc.f32["N"]):
    last = np.asarray(-1)
    for i in range(x.shape[0]):
        if x[i] > 0:
            last = np.asarray(i + x.shape[0])
    return last
