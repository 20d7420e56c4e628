"""FINDINGS.md F1: the gradient through `x = 0.0 - rec(x, n)` three times reads a stale value."""
import agc
import agc.numpy as np


def rec(x, k):
    if k <= 0:
        return x
    return rec(x, k - 1)


def loss(x, n):
    x = 0.0 - rec(x, n)
    x = 0.0 - rec(x, n)
    x = 0.0 - rec(x, n)
    return np.sum(np.sin(x))


@agc.export
def f1(x: agc.f64[3], n: agc.i32[()]):
    return agc.grad(loss)(x, n)


AGC_FUZZ_INPUTS = {"f1": [np.array([0.1, 0.5, -0.3]), np.array(1, dtype=np.int32)]}


def agc_test_inputs(export_name, rng, dims):
    return AGC_FUZZ_INPUTS.get(export_name)
