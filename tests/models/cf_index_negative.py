"""Negative run-time indices and slice bounds: `x[-k]`, `x[-k:]`, `x[:-k]`, `x[n - k]`."""
import agc
import agc.numpy as np


@agc.export
def from_end(x: agc.f32["N", 2], k: agc.i64[()]):
    return x[-k], np.sum(x[-k:], axis=0), np.sum(x[:-k], axis=0), x[x.shape[0] - k]


def agc_test_inputs(export_name, rng, dims):
    n = dims["N"]
    return [rng.standard_normal((n, 2)).astype(np.float32), np.int64(n if n % 2 else 1)]


AGC_TEST_DIMS = {"N": 5}
