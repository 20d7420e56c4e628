"""`np.stack` of a list that a staged loop left empty: numpy raises ValueError, the library must return an error."""
import agc
import agc.numpy as np


@agc.export
def stack_n(x: agc.f32[3], n: agc.i64[()]):
    outs = []
    for i in range(n):
        outs.append(x * i)
    return np.stack(outs)


@agc.export(name="stack_n_empty")
def stack_n_empty(x: agc.f32[3], n: agc.i64[()]):
    return stack_n(x, n)


def agc_test_inputs(export_name, rng, dims):
    return [rng.standard_normal(3).astype(np.float32), np.int64(4 if export_name == "stack_n" else 0)]


AGC_TEST_NUMPY_RAISES = True   # stack_n_empty: numpy raises on its inputs
