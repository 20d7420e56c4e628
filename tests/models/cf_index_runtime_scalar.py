"""`x[i]` with a run-time integer `i` (an `agc.i64[()]` / `agc.i32[()]` parameter), non-negative and negative."""
import agc
import agc.numpy as np


@agc.export
def row(x: agc.f32["N", 3], i: agc.i64[()]):
    return x[i]


@agc.export
def element(x: agc.f64["N"], i: agc.i32[()]):
    return x[i] * 2


@agc.export
def two_rows(x: agc.f32["N", 3], i: agc.i64[()], j: agc.i64[()]):
    return x[i] - x[j], x[i][j % 3]


def agc_test_inputs(export_name, rng, dims):
    n = dims["N"]
    if export_name == "row":
        return [rng.standard_normal((n, 3)).astype(np.float32), np.int64(n - 1 if n % 2 else -n)]
    if export_name == "element":
        return [rng.standard_normal(n), np.int32(-1 if n % 2 else 0)]
    return [rng.standard_normal((n, 3)).astype(np.float32), np.int64(1), np.int64(-2 if n % 2 else 0)]
