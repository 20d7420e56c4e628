"""FINDINGS.md F2: the gradient of a staged `a if c else b` nested inside a larger expression."""
import agc
import agc.numpy as np


def loss(x, n):
    y = np.tanh(x * 0.5 + (np.cos(x) if n > 0 else x))
    return np.sum(y)


@agc.export
def f2(x: agc.f32[3], n: agc.i32[()]):
    return agc.grad(loss)(x, n)


AGC_FUZZ_INPUTS = {"f2": [np.array([0.1, 0.5, -0.3], dtype=np.float32), np.array(1, dtype=np.int32)]}


def agc_test_inputs(export_name, rng, dims):
    return AGC_FUZZ_INPUTS.get(export_name)
