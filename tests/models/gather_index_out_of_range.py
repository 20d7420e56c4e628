"""Index arrays with an element out of range: numpy raises IndexError, so the library
must return an error status (and read nothing outside the tensor)."""
import agc
import agc.numpy as np


@agc.export
def past_end(E: agc.f32["V", 2], ids: agc.i64["T"]):
    return E[ids]


@agc.export
def before_start(x: agc.f32[3, "N"], ids: agc.i32[2]):
    return np.take(x, ids, axis=1)


def agc_test_inputs(export_name, rng, dims):
    v, t, n = dims["V"], dims["T"], dims["N"]
    first = t == 3              # the first call is out of range, the second in range
    if export_name == "past_end":
        ids = rng.integers(0, v, t).astype(np.int64)
        ids[-1] = v if first else v - 1
        return [rng.standard_normal((v, 2)).astype(np.float32), ids]
    return [rng.standard_normal((3, n)).astype(np.float32), np.array([0, -n - 1 if first else -n], dtype=np.int32)]


AGC_TEST_DIMS = {"V": 6, "T": 3, "N": 4}
