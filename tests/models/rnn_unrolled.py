"""An Elman RNN unrolled over a compile-time number of steps, returning all hidden states and the last."""
import agc
import agc.numpy as np

STEPS, IN, H = 5, 3, 6


def cell(w, u, b, x, h):
    return np.tanh(x @ w + h @ u + b)


@agc.export
def rnn(w: agc.f32[IN, H], u: agc.f32[H, H], b: agc.f32[H], xs: agc.f32[STEPS, "B", IN], h0: agc.f32["B", H]):
    h = h0
    states = []
    for t in range(STEPS):
        h = cell(w, u, b, xs[t], h)
        states.append(h)
    return np.stack(states, axis=1), h


@agc.export
def rnn_reverse(w: agc.f32[IN, H], u: agc.f32[H, H], b: agc.f32[H], xs: agc.f32[STEPS, "B", IN]):
    h = np.zeros((xs.shape[1], H), dtype=np.float32)
    for t in range(STEPS - 1, -1, -1):
        h = cell(w, u, b, xs[t], h)
    return h
