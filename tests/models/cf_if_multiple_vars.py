"""A staged `if` that updates several variables of different dtypes, some only in one branch."""
import agc
import agc.numpy as np


@agc.export
def update_state(x: agc.f32["N"], counter: agc.i32[()], flag: agc.bool_[()]):
    total = np.sum(x)
    scaled = x
    hits = counter
    seen = flag
    if total > 0:
        scaled = x * total
        hits = hits + 1
        seen = np.logical_not(seen)
    else:
        hits = hits - 1
    return scaled, hits, seen, total


def agc_test_inputs(export_name, rng, dims):
    n = dims["N"]
    x = np.abs(rng.standard_normal(n)).astype(np.float32)
    if n % 2 == 0:
        x = -x
    return [x, np.int32(rng.integers(-5, 5)), np.bool_(n % 2 == 0)]
