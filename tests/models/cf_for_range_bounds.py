"""Staged `range(start, stop, step)`: run-time start and stop, positive and negative compile-time steps, empty ranges."""
import agc
import agc.numpy as np


@agc.export
def window_sum(x: agc.f32["N"], a: agc.i64[()], b: agc.i64[()]):
    total = np.zeros((), dtype=np.float32)
    for i in range(a, b):
        total = total + x[i]
    return total


@agc.export
def odd_positions(x: agc.f32["N"]):
    total = np.zeros((), dtype=np.float32)
    for i in range(1, x.shape[0], 2):
        total = total + x[i]
    return total


@agc.export
def reversed_weights(x: agc.f32["N"]):
    total = np.zeros((), dtype=np.float32)
    w = 1.0
    for i in range(x.shape[0] - 1, -1, -1):
        total = total + x[i] * w
        w = w * 0.5
    return total


@agc.export
def countdown(n: agc.i64[()]):
    out = 0
    for i in range(n, 0, -3):
        out = out * 10 + i
    return np.asarray(out)


def agc_test_inputs(export_name, rng, dims):
    n = dims.get("N", 0)
    if export_name == "window_sum":
        x = rng.standard_normal(n).astype(np.float32)
        a, b = (1, n - 1) if n % 2 else (n - 1, 0)   # the second call gives an empty range
        return [x, np.int64(a), np.int64(b)]
    if export_name == "countdown":
        return [np.int64(8)]
    return None


@agc.export(name="countdown_empty")
def countdown_b(n: agc.i64[()]):
    return countdown(n)


_hook = agc_test_inputs


def agc_test_inputs(export_name, rng, dims):  # noqa: F811
    if export_name == "countdown_empty":
        return [np.int64(-2)]
    return _hook(export_name, rng, dims)


AGC_TEST_DIMS = {"N": 7}
