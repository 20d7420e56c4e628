"""The index of a staged loop is a Python int in eager mode: weak in arithmetic, so float32 stays float32."""
import agc
import agc.numpy as np


@agc.export
def running_sum(xs: agc.f32["T", 3]):
    total = np.zeros(3, dtype=np.float32)
    for t in range(xs.shape[0]):
        total = total + xs[t] * (t + 1)
    return total


@agc.export
def index_as_float(xs: agc.f32["T", 2]):
    out = xs * 0
    for t in range(xs.shape[0]):
        out = out + t / 2
    return out


AGC_TEST_DIMS = {"T": 5}
