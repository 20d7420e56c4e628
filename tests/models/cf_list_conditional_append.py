"""Appending under a staged `if` in a staged loop: the list length is data-dependent (a filter)."""
import agc
import agc.numpy as np


@agc.export
def positives(x: agc.f32["N"]):
    kept = [np.zeros((), dtype=np.float32)]
    for i in range(x.shape[0]):
        if x[i] > 0:
            kept.append(x[i])
    return np.stack(kept), np.asarray(len(kept))


@agc.export
def filtered(x: agc.f32["N"], t: agc.f32[()]):
    kept = []
    for i in range(x.shape[0]):
        if x[i] > t:
            kept.append(x[i] * 2)
    return np.stack(kept), np.asarray(len(kept))


def agc_test_inputs(export_name, rng, dims):
    n = dims["N"]
    x = rng.standard_normal(n).astype(np.float32)
    if export_name == "filtered":
        x[n // 2] = 5.0      # at least one element is kept
        return [x, np.float32(0.0 if n % 2 else 1.0)]
    return [x]


AGC_TEST_DIMS = {"N": 9}
