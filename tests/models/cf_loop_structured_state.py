"""Loop state held in Python structures: a tuple and a fixed-length list rotated each step."""
import agc
import agc.numpy as np


@agc.export
def tuple_state(xs: agc.f32["T", 2]):
    state = (np.zeros(2, dtype=np.float32), np.ones(2, dtype=np.float32))
    for t in range(xs.shape[0]):
        a, b = state
        state = (b, a + b * xs[t])
    return state


@agc.export
def rotating_window(xs: agc.f64["T"]):
    window = [xs[0] * 0, xs[0] * 0, xs[0] * 0]
    for t in range(xs.shape[0]):
        window = [window[1], window[2], xs[t]]
    return np.stack(window), window[0] + window[1] + window[2]


AGC_TEST_DIMS = {"T": 5}
