"""`while` loops whose condition is a run-time value (data-dependent trip counts)."""
import agc
import agc.numpy as np


@agc.export
def newton_sqrt(a: agc.f64[5]):
    """Newton's iteration for sqrt(a) until the update is tiny (a > 0)."""
    x = a
    delta = a
    steps = 0
    while np.max(np.abs(delta)) > 1e-12:
        new = 0.5 * (x + a / x)
        delta = new - x
        x = new
        steps = steps + 1
    return x, np.asarray(steps)


@agc.export
def halve_until_small(x: agc.f32[3], limit: agc.f32[()]):
    count = np.zeros((), dtype=np.int32)
    while np.sum(np.abs(x)) > limit:
        x = x * 0.5
        count = count + 1
    return x, count


def agc_test_inputs(export_name, rng, dims):
    if export_name == "newton_sqrt":
        return [rng.uniform(0.5, 100.0, size=5)]
    return [rng.standard_normal(3).astype(np.float32) * 100, np.float32(0.1)]
