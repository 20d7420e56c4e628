"""A staged `while` whose condition is false at entry: the body never runs and the state is unchanged."""
import agc
import agc.numpy as np


@agc.export
def shrink(x: agc.f32["N"], limit: agc.f32[()]):
    steps = np.zeros((), dtype=np.int32)
    while np.max(np.abs(x)) > limit:
        x = x * 0.5
        steps = steps + 1
    return x, steps


def agc_test_inputs(export_name, rng, dims):
    x = rng.standard_normal(dims["N"]).astype(np.float32)
    # first call: already below the limit (zero trips); second: several halvings
    return [x, np.float32(100.0 if dims["N"] % 2 else 0.01)]
