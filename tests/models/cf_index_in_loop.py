"""Indices computed inside staged loops: a gather through an index array (negative entries too) and a diagonal."""
import agc
import agc.numpy as np


@agc.export
def gather(x: agc.f32["N", 2], idx: agc.i64["K"]):
    out = []
    for t in range(idx.shape[0]):
        out.append(x[idx[t]])
    return np.stack(out)


@agc.export
def trace(a: agc.f64["N", "N"]):
    s = np.zeros((), dtype=np.float64)
    for i in range(a.shape[0]):
        s = s + a[i, i] * a[i, -1 - i]
    return s


@agc.export
def gather_bad(x: agc.f32["N"], idx: agc.i64["K"]):
    total = np.zeros((), dtype=np.float32)
    for t in range(idx.shape[0]):
        total = total + x[idx[t]]
    return total


def agc_test_inputs(export_name, rng, dims):
    n, k = dims["N"], dims["K"]
    if export_name == "gather":
        return [rng.standard_normal((n, 2)).astype(np.float32), rng.integers(-n, n, size=k).astype(np.int64)]
    if export_name == "gather_bad":
        idx = rng.integers(0, n, size=k).astype(np.int64)
        if n % 2:
            idx[k - 1] = n       # the last step of the first call is out of range
        return [rng.standard_normal(n).astype(np.float32), idx]
    return None


AGC_TEST_DIMS = {"N": 5, "K": 7}
