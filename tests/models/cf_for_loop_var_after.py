"""The loop variable of a staged `for` after the loop holds its last value (after a `break`: the value then)."""
import agc
import agc.numpy as np


@agc.export
def last_index(x: agc.f32["N"]):
    i = -1
    for i in range(x.shape[0]):
        pass
    return np.asarray(i)


@agc.export
def break_index(x: agc.f32["N"], t: agc.f32[()]):
    i = 0
    for i in range(x.shape[0]):
        if x[i] > t:
            break
    return np.asarray(i), x[i]


def agc_test_inputs(export_name, rng, dims):
    n = dims["N"]
    x = rng.standard_normal(n).astype(np.float32)
    if export_name == "break_index":
        if n < 5:                   # the second call (N=2) breaks at 1, the first (N=8) runs to the end
            x[:] = [-1.0, 5.0]
        return [x, np.float32(1.0 if n < 5 else 99.0)]
    return [x]


AGC_TEST_DIMS = {"N": 8}
