"""Run-time integer indices out of range: numpy raises IndexError, so the library must return an error status."""
import agc
import agc.numpy as np


@agc.export
def past_end(x: agc.f32["N", 2], i: agc.i64[()]):
    return x[i]


@agc.export
def before_start(x: agc.f32["N"], i: agc.i64[()]):
    return x[i] + 1


@agc.export
def static_axis(x: agc.f32[4, 2], j: agc.i64[()]):
    return x[j]


@agc.export
def second_axis(x: agc.f32["N", "M"], i: agc.i64[()], j: agc.i64[()]):
    return x[i, j]


def agc_test_inputs(export_name, rng, dims):
    n, m = dims["N"], dims["M"]
    first = n % 2 == 1          # the first call is out of range, the second in range
    if export_name == "past_end":
        return [rng.standard_normal((n, 2)).astype(np.float32), np.int64(n if first else n - 1)]
    if export_name == "before_start":
        return [rng.standard_normal(n).astype(np.float32), np.int64(-n - 1 if first else -n)]
    if export_name == "static_axis":
        return [rng.standard_normal((4, 2)).astype(np.float32), np.int64(4)]
    return [rng.standard_normal((n, m)).astype(np.float32), np.int64(0), np.int64(m if first else -m)]


AGC_TEST_DIMS = {"N": 5, "M": 3}
AGC_TEST_NUMPY_RAISES = True   # static_axis: numpy raises on its (only) input
