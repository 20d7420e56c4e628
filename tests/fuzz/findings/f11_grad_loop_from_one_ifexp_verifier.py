"""FINDINGS.md F11: internal verifier error under agc.grad: a staged `for i in range(1, n + 1)`
holding a staged conditional expression of a float64 value."""
import agc
import agc.numpy as np


def loss(x1, x2, n):
    for i in range(1, n + 1):
        v = x2 if np.mean(x2) > 0.1 else x2
    return np.mean(x1)


@agc.export
def f11(x0: agc.f32[()], x1: agc.f32['B'], x2: agc.f64[3], n: agc.i32[()]):
    return agc.grad(lambda w: loss(x1, x2, n) * w)(x0)


AGC_FUZZ_INPUTS = {"f11": [np.array(0.5, dtype=np.float32), np.array([1.0, 2.0], dtype=np.float32),
                           np.array([0.3, 0.2, 0.1]), np.array(2, dtype=np.int32)]}


def agc_test_inputs(export_name, rng, dims):
    return AGC_FUZZ_INPUTS.get(export_name)
