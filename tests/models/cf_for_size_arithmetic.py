"""Arithmetic on run-time sizes used as loop bounds and as values (`range(A * B)`, `np.asarray(N * 100)`, the length of a run-time slice)."""
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
def slice_length(x: agc.f32["N"], k: agc.i64[()]):
    return np.asarray(x[k:].shape[0]), np.asarray(x[:k].size)


@agc.export
def size_in_loop_state(x: agc.f32["N"]):
    last = np.asarray(-1)
    for i in range(x.shape[0]):
        if x[i] > 0:
            last = np.asarray(i + x.shape[0])
    return last


def agc_test_inputs(export_name, rng, dims):
    if export_name == "slice_length":
        n = dims["N"]
        return [rng.standard_normal(n).astype(np.float32), np.int64(2 if n % 2 else -1)]
    return None
