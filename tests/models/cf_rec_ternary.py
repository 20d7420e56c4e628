"""Recursion whose base case is chosen by a conditional expression on a staged value."""
import agc
import agc.numpy as np


def count_down(x, n):
    # (x + 1.0, not x + n: a strong int64 n would make the dtype depend on the
    # run-time path, float32 at the base case and float64 above it.)
    return x if n <= 0 else count_down(x + 1.0, n - 1)


@agc.export
def ternary_recursion(x: agc.f32["N"], n: agc.i64[()]):
    return count_down(x, n)


def agc_test_inputs(export_name, rng, dims):
    return [rng.standard_normal(dims["N"]).astype(np.float32), np.int64(dims["N"] * 2)]
