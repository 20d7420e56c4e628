"""LSTM forward over a run-time number of steps (a staged loop), gates in PyTorch's order."""
import agc
import agc.numpy as np

I, H = 256, 256


def sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


@agc.export
def lstm_forward(xs: agc.f32["T", "B", I], w: agc.f32[I, 4 * H], u: agc.f32[H, 4 * H], b: agc.f32[4 * H]):
    batch = xs.shape[1]
    h = np.zeros((batch, H), dtype=np.float32)
    c = np.zeros((batch, H), dtype=np.float32)
    outputs = []
    for t in range(xs.shape[0]):
        g = xs[t] @ w + h @ u + b
        i = sigmoid(g[:, :H])
        f = sigmoid(g[:, H:2 * H])
        cand = np.tanh(g[:, 2 * H:3 * H])
        o = sigmoid(g[:, 3 * H:])
        c = f * c + i * cand
        h = o * np.tanh(c)
        outputs.append(h)
    return np.stack(outputs), c
