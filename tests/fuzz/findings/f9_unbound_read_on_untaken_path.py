"""FINDINGS.md F9: a read that raises UnboundLocalError only on a path not taken is a build error."""
import agc
import agc.numpy as np


@agc.export
def f9(x: agc.f32[3], n: agc.i32[()]):
    if n == 0:
        v = v + 1.0
        x = x + v
    return x


AGC_FUZZ_INPUTS = {"f9": [np.array([1.0, 2.0, 3.0], dtype=np.float32), np.array(1, dtype=np.int32)]}


def agc_test_inputs(export_name, rng, dims):
    return AGC_FUZZ_INPUTS.get(export_name)
