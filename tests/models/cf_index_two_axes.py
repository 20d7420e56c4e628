"""`x[i, j]`, `x[i, :]` and `x[i][j]` with run-time `i`, `j` on symbolic and static axes."""
import agc
import agc.numpy as np


@agc.export
def pick(x: agc.f32["N", "M"], i: agc.i64[()], j: agc.i64[()]):
    return x[i, j], x[i][j], x[i, :]


@agc.export
def static_axes(x: agc.f32[4, 5], i: agc.i64[()], j: agc.i64[()]):
    return x[i, j] + x[j % 4, i], x[i, 1:] * x[-1, j]


def agc_test_inputs(export_name, rng, dims):
    if export_name == "pick":
        n, m = dims["N"], dims["M"]
        x = rng.standard_normal((n, m)).astype(np.float32)
        return [x, np.int64(n - 1), np.int64(-m if n % 2 else m - 1)]
    x = rng.standard_normal((4, 5)).astype(np.float32)
    return [x, np.int64(3), np.int64(-2)]


AGC_TEST_DIMS = {"N": 5, "M": 3}
