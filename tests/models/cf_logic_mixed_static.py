"""`and`/`or`/`not` mixing compile-time values with staged booleans: the compile-time side decides when it can."""
import agc
import agc.numpy as np

DEBUG = False
ENABLED = True


@agc.export(name="mixed_on", enabled=True)
@agc.export(name="mixed_off", enabled=False)
def mixed(x: agc.f32["N"], enabled=True):
    y = x
    if enabled and np.sum(x) > 0:
        y = y + 1
    if DEBUG and np.sum(x) > 100:
        y = y * 1000
    if ENABLED or np.sum(x) > 0:
        y = y * 2
    if not enabled or np.max(x) > 1:
        y = y - 0.5
    return y


@agc.export
def static_then_staged(x: agc.f32["N"]):
    n = x.shape[0]
    if n > 0 and x[0] > 0:          # `n > 0` is staged too: N is symbolic
        return x * 2
    return x


def agc_test_inputs(export_name, rng, dims):
    n = dims["N"]
    x = rng.standard_normal(n).astype(np.float32)
    x = np.abs(x) + 1.5 if n % 2 else -np.abs(x)
    return [x]
