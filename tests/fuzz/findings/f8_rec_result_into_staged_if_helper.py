"""FINDINGS.md F8: a staged recursion's result passed to a helper whose staged `if` returns on both
paths: rejected with "variable '__agc_retval' ... different compile-time values"."""
import agc
import agc.numpy as np


def g(x, k):
    if k <= 0:
        return x
    return x * 2.0


def rec(x, k):
    if k <= 0:
        return x
    a = rec(x, k - 1)
    return g(a, k)


@agc.export
def f8(x: agc.f32[3], n: agc.i32[()]):
    return rec(x, n)


AGC_FUZZ_INPUTS = {"f8": [np.array([1.0, 2.0, 3.0], dtype=np.float32), np.array(3, dtype=np.int32)]}


def agc_test_inputs(export_name, rng, dims):
    return AGC_FUZZ_INPUTS.get(export_name)
