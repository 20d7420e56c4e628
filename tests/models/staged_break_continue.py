"""`continue` and `break` on run-time conditions inside a loop over a compile-time range."""
import agc
import agc.numpy as np


@agc.export
def sum_positive_until(x: agc.f32[8], limit: agc.f32[()]):
    total = np.zeros((), dtype=np.float32)
    for i in range(8):
        if x[i] < 0:
            continue
        total = total + x[i]
        if total > limit:
            break
    return total


def agc_test_inputs(export_name, rng, dims):
    return [rng.standard_normal(8).astype(np.float32), np.float32(1.5)]
