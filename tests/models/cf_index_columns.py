"""`x[:, j]` with a run-time `j` (an index on a non-leading axis), in range and, for one export, out of range."""
import agc
import agc.numpy as np


@agc.export
def column(x: agc.f32["N", "M"], j: agc.i64[()]):
    return x[:, j]


@agc.export
def column_sum_loop(x: agc.f32["N", "M"]):
    acc = np.zeros(x.shape[0], dtype=np.float32)
    for j in range(x.shape[1]):
        acc = acc + x[:, j] * j
    return acc


@agc.export
def column_static(x: agc.f32[2, 4], j: agc.i64[()]):
    return x[:, j]


def agc_test_inputs(export_name, rng, dims):
    n, m = dims["N"], dims["M"]
    if export_name == "column":
        return [rng.standard_normal((n, m)).astype(np.float32), np.int64(-1 if n % 2 else m)]   # 2nd: out of range
    if export_name == "column_static":
        return [rng.standard_normal((2, 4)).astype(np.float32), np.int64(-4)]
    return None


AGC_TEST_DIMS = {"N": 5, "M": 3}
