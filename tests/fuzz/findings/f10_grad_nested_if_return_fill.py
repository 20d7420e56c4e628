"""FINDINGS.md F10: F4's "size of symbolic dim `B` is unknown here" again: nested staged ifs with an
early return, differentiated w.r.t. a symbolic-size argument."""
import agc
import agc.numpy as np


def loss(x0, x1):
    if x0 > 0.5:
        if x0 > 1.0:
            x1 = x1 * 0.5
        return x0
    return x1[-1]


@agc.export
def f10(x0: agc.f32[()], x1: agc.f32['B']):
    return agc.grad(loss, argnums=1)(x0, x1)


AGC_FUZZ_INPUTS = {"f10": [np.array(0.2, dtype=np.float32), np.array([1.0, 2.0, 3.0], dtype=np.float32)]}


def agc_test_inputs(export_name, rng, dims):
    return AGC_FUZZ_INPUTS.get(export_name)
