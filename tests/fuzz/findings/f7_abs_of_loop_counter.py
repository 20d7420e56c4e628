"""FINDINGS.md F7: abs() of a staged loop counter is not a Python int: the loop state changes dtype."""
import agc
import agc.numpy as np


@agc.export
def absdiv(x: agc.f32[3], n: agc.i32[()]):
    for i in range(n):
        x = x / (abs(i) + 1.0)
    return x


AGC_FUZZ_INPUTS = {"absdiv": [np.array([1.0, 2.0, 3.0], dtype=np.float32), np.array(3, dtype=np.int32)]}


def agc_test_inputs(export_name, rng, dims):
    return AGC_FUZZ_INPUTS.get(export_name)
