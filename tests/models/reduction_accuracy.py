"""Long float32 reductions must be about as accurate as numpy's pairwise summation (checked at rtol 1e-4)."""
import agc
import agc.numpy as np


@agc.export
def big_sum(x: agc.f32[1000000]):
    return np.sum(x), np.mean(x), np.mean(x * x)


@agc.export
def big_rows(x: agc.f32[4, 250000]):
    return np.sum(x, axis=1), np.mean(x, axis=-1)


def agc_test_inputs(export_name, rng, dims):
    if export_name == "big_sum":
        return [rng.uniform(0.5, 1.5, size=1000000).astype(np.float32)]
    return [rng.uniform(0.5, 1.5, size=(4, 250000)).astype(np.float32)]
