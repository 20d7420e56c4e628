"""`x[i:j]`, `x[i:]`, `x[:j]` with run-time bounds; numpy clamps slice bounds, so nothing is out of range."""
import agc
import agc.numpy as np


@agc.export
def window(x: agc.f32["N", 2], i: agc.i64[()], j: agc.i64[()]):
    return x[i:j]


@agc.export
def head_tail(x: agc.f32["N"], k: agc.i64[()]):
    return np.sum(x[:k]), np.sum(x[k:])


@agc.export(name="window_clamped")
def window_clamped(x: agc.f32["N", 2], i: agc.i64[()], j: agc.i64[()]):
    return x[i:j] * 2


@agc.export(name="window_empty")
def window_empty(x: agc.f32["N", 2], i: agc.i64[()], j: agc.i64[()]):
    return x[i:j] + 1


def agc_test_inputs(export_name, rng, dims):
    n = dims["N"]
    if export_name == "head_tail":
        return [rng.standard_normal(n).astype(np.float32), np.int64(2 if n > 4 else n + 5)]
    x = rng.standard_normal((n, 2)).astype(np.float32)
    i, j = {"window": (1, n - 1), "window_clamped": (-100, 100), "window_empty": (n - 1, 1)}[export_name]
    return [x, np.int64(i), np.int64(j)]


AGC_TEST_DIMS = {"N": 6}
