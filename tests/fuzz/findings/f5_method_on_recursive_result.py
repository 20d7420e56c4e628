"""FINDINGS.md F5: a method call on a staged recursive call's result: 'recursive result' object is not callable."""
import agc
import agc.numpy as np


def rec(x, k):
    if k <= 0:
        return x
    a = rec(x * 0.5, k - 1)
    return a + a.sum()


@agc.export
def f5(x: agc.f32[3], n: agc.i32[()]):
    return rec(x, n)


AGC_FUZZ_INPUTS = {"f5": [np.array([1.0, 2.0, 3.0], dtype=np.float32), np.array(2, dtype=np.int32)]}


def agc_test_inputs(export_name, rng, dims):
    return AGC_FUZZ_INPUTS.get(export_name)
