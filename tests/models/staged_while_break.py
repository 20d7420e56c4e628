"""`while True` left by a `break` on a run-time condition; `continue` on a run-time condition."""
import agc
import agc.numpy as np


@agc.export
def first_power_above(base: agc.i64[()], bound: agc.i64[()]):
    p = np.ones((), dtype=np.int64)
    n = 0
    while True:
        n = n + 1
        p = p * base
        if p > bound:
            break
    return p, np.asarray(n)


@agc.export
def sum_positive_until(x: agc.f32[8], limit: agc.f32[()]):
    total = np.zeros((), dtype=np.float32)
    for i in range(8):
        if x[i] < 0:
            continue
        total = total + x[i]
        if total > limit:
            break
    return total


def agc_test_inputs(export_name, rng, dims):
    if export_name == "first_power_above":
        return [np.int64(rng.integers(2, 5)), np.int64(rng.integers(10, 10000))]
    return [rng.standard_normal(8).astype(np.float32), np.float32(1.5)]
