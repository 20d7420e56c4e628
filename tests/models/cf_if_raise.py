"""`raise ValueError(...)` inside a staged `if`: where numpy/CPython raises, the library returns an error status."""
import agc
import agc.numpy as np


def checked_log(x):
    if np.min(x) <= 0:
        raise ValueError("checked_log needs positive inputs")
    return np.log(x)


@agc.export
def validate(x: agc.f32["N"]):
    return checked_log(x)


@agc.export
def validate_in_loop(xs: agc.f32["T", 3]):
    acc = np.zeros(3, dtype=np.float32)
    for t in range(xs.shape[0]):
        if np.sum(xs[t]) > 100:
            raise ValueError("row too large")
        acc = acc + xs[t]
    return acc


def agc_test_inputs(export_name, rng, dims):
    if export_name == "validate":
        n = dims["N"]
        x = np.abs(rng.standard_normal(n)).astype(np.float32) + 0.1
        if n % 2 == 0:
            x[-1] = -1.0           # the second call raises
        return [x]
    t = dims["T"]
    xs = rng.standard_normal((t, 3)).astype(np.float32)
    if t < 5:
        xs[t // 2] = 1000.0        # the first call (T=3) raises in the middle of the loop, the second (T=7) not
    return [xs]
