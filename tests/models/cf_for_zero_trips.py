"""Staged loops over a run-time axis of length 0: the body never runs, the state keeps its initial value."""
import agc
import agc.numpy as np


@agc.export
def sum_rows(x: agc.f32["T", 3]):
    acc = np.ones(3, dtype=np.float32)
    for row in x:
        acc = acc + row
    return acc


@agc.export
def count_positive(x: agc.f32["T", 3]):
    n = 0
    for t in range(x.shape[0]):
        if np.sum(x[t]) > 0:
            n += 1
    return np.asarray(n)


def agc_test_inputs(export_name, rng, dims):
    t = 0 if dims["T"] > 4 else dims["T"]       # the first call has no rows at all
    return [rng.standard_normal((t, 3)).astype(np.float32)]
