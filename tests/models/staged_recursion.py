"""A recursive function whose recursion depth is a run-time value (a staged re-entrant function)."""
import agc
import agc.numpy as np


def power(x, n):
    if n <= 0:
        return np.ones_like(x)
    return x * power(x, n - 1)


def tree_sum(x, depth):
    if depth == 0:
        return x
    return tree_sum(x * 0.5, depth - 1) + tree_sum(x * 0.25, depth - 1)


@agc.export
def staged_power(x: agc.f64[4], n: agc.i64[()]):
    return power(x, n)


@agc.export
def staged_tree(x: agc.f64[3], depth: agc.i32[()]):
    return tree_sum(x, depth)


def agc_test_inputs(export_name, rng, dims):
    if export_name == "staged_power":
        return [rng.uniform(-1.5, 1.5, size=4), np.int64(rng.integers(0, 7))]
    return [rng.standard_normal(3), np.int32(rng.integers(0, 5))]
