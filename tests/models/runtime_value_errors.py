"""Where numpy raises at run time, the library must return an error status (agc.Error), not a number.

max/min/argmax of an empty axis have no identity (ValueError in numpy)."""

import agc
import agc.numpy as np

AGC_TEST_NUMPY_RAISES = True   # every test input is empty


@agc.export
def max_of_rows(x: agc.f32["B", 3]):
    return np.max(x, axis=0)


@agc.export
def argmax_of_rows(x: agc.f32["B", 3]):
    return np.argmax(x, axis=0)


def agc_test_inputs(export_name, rng, dims):
    return [rng.standard_normal((0, 3)).astype(np.float32)]
