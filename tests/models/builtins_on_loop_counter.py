"""Python builtins of a staged loop counter keep it a Python number (numpy 2's weak scalars):
`abs(i) + 1.0` divides a float32 array without promoting it to float64."""
import agc
import agc.numpy as np


@agc.export
def abs_of_counter(x: agc.f32[3], n: agc.i32[()]):
    for i in range(n):
        x = x / (abs(i) + 1.0)
    return x


@agc.export
def abs_of_negative_counter(x: agc.f32[3], n: agc.i32[()]):
    for i in range(-n, 0):
        x = x + abs(i) * 0.5
    return x


def agc_test_inputs(export_name, rng, dims):
    return [rng.standard_normal(3).astype(np.float32), np.int32(3)]
