"""FINDINGS.md F6: `break` in a staged while loop counting with a Python int is ignored."""
import agc
import agc.numpy as np


@agc.export
def brk(x: agc.f64[3], n: agc.i32[()]):
    j = 0
    while j < n:
        j = j + 1
        if j == 2:
            break
    return x * j


@agc.export
def brk_and(x: agc.f64[3], n: agc.i32[()]):
    j = 0
    while j < 4 and n <= 3:
        j = j + 1
        if j > 1:
            break
    return x * j


AGC_FUZZ_INPUTS = {
    "brk": [np.array([1.0, 2.0, 3.0]), np.array(5, dtype=np.int32)],
    "brk_and": [np.array([1.0, 2.0, 3.0]), np.array(1, dtype=np.int32)],
}


def agc_test_inputs(export_name, rng, dims):
    return AGC_FUZZ_INPUTS.get(export_name)
