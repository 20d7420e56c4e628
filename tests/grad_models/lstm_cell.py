"""An LSTM over a sequence (gates sliced from one matmul, sigmoid as 1/(1+exp(-z))), in a staged loop (float32)."""
import agc
import agc.numpy as np


def sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def lstm_loss(W, b, xs, wout):
    H = 3
    h = np.zeros((xs.shape[1], H), dtype=xs.dtype)
    c = np.zeros((xs.shape[1], H), dtype=xs.dtype)
    for t in range(xs.shape[0]):
        z = np.concatenate([xs[t], h], axis=1) @ W + b
        i, f, o, u = sigmoid(z[:, :H]), sigmoid(z[:, H:2 * H]), sigmoid(z[:, 2 * H:3 * H]), np.tanh(z[:, 3 * H:])
        c = f * c + i * u
        h = o * np.tanh(c)
    return np.sum((h @ wout) ** 2)


@agc.export
def lstm_grad(W: agc.f32[5, 12], b: agc.f32[12], xs: agc.f32["T", "B", 2], wout: agc.f32[3, 2]):
    return agc.grad(lstm_loss, argnums=(0, 1, 2, 3))(W, b, xs, wout)


AGC_GRAD_CHECKS = {"lstm_grad": ("lstm_loss", (0, 1, 2, 3))}
