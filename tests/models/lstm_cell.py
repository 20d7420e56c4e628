"""An LSTM cell returning (h, c), and a two-step unroll over a compile-time sequence length."""
import agc
import agc.numpy as np

IN, H = 5, 4


def sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def lstm_step(x, h, c, w, u, b):
    g = x @ w + h @ u + b
    i, f, o = sigmoid(g[:, :H]), sigmoid(g[:, H:2 * H]), sigmoid(g[:, 2 * H:3 * H])
    cand = np.tanh(g[:, 3 * H:])
    c = f * c + i * cand
    return o * np.tanh(c), c


@agc.export
def lstm_cell(x: agc.f32["B", IN], h: agc.f32["B", H], c: agc.f32["B", H],
              w: agc.f32[IN, 4 * H], u: agc.f32[H, 4 * H], b: agc.f32[4 * H]):
    return lstm_step(x, h, c, w, u, b)


@agc.export
def lstm_sequence(xs: agc.f32[3, "B", IN], w: agc.f32[IN, 4 * H], u: agc.f32[H, 4 * H], b: agc.f32[4 * H]):
    batch = xs.shape[1]
    h = np.zeros((batch, H), dtype=np.float32)
    c = np.zeros((batch, H), dtype=np.float32)
    outputs = []
    for t in range(xs.shape[0]):
        h, c = lstm_step(xs[t], h, c, w, u, b)
        outputs.append(h)
    return np.stack(outputs), c
