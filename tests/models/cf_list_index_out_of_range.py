"""Indexing a staged tensor list past its run-time length: numpy raises IndexError, the library an error status."""
import agc
import agc.numpy as np


@agc.export
def list_index(xs: agc.f32["T", 2], k: agc.i64[()]):
    hs = []
    for t in range(xs.shape[0]):
        hs.append(xs[t] * 2)
    return hs[k]


def agc_test_inputs(export_name, rng, dims):
    t = dims["T"]
    # first call: k == T (one past the end); second call: in range
    return [rng.standard_normal((t, 2)).astype(np.float32), np.int64(t if t % 2 else t - 1)]
