"""A helper returning a tuple, unpacked into the state of a staged loop (an LSTM-like (h, c) pair)."""
import agc
import agc.numpy as np


def lstm_step(x, h, c, w):
    z = np.concatenate([x, h]) @ w
    i = 1 / (1 + np.exp(-z[0:2]))
    f = 1 / (1 + np.exp(-z[2:4]))
    o = 1 / (1 + np.exp(-z[4:6]))
    g = np.tanh(z[6:8])
    c = f * c + i * g
    return o * np.tanh(c), c


@agc.export
def lstm(xs: agc.f32["T", 3], w: agc.f32[5, 8]):
    h = np.zeros(2, dtype=np.float32)
    c = np.zeros(2, dtype=np.float32)
    for t in range(xs.shape[0]):
        h, c = lstm_step(xs[t], h, c, w)
    return h, c


AGC_TEST_DIMS = {"T": 6}
