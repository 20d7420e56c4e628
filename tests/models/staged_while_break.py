"""`while True` left by a `break` on a run-time condition."""
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


def agc_test_inputs(export_name, rng, dims):
    return [np.int64(rng.integers(2, 5)), np.int64(rng.integers(10, 10000))]
