"""A GRU cell (update/reset gates, candidate state) on a symbolic batch, with stacked gate weights."""
import agc
import numpy as np

IN, H = 6, 8


def sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


@agc.export
def gru_cell(x: agc.f32["B", IN], h: agc.f32["B", H], w: agc.f32[IN, 3 * H],
             u: agc.f32[H, 3 * H], b: agc.f32[3 * H]):
    gx = x @ w + b
    gh = h @ u
    z = sigmoid(gx[:, :H] + gh[:, :H])
    r = sigmoid(gx[:, H:2 * H] + gh[:, H:2 * H])
    n = np.tanh(gx[:, 2 * H:] + r * gh[:, 2 * H:])
    return (1 - z) * n + z * h


def agc_test_inputs(export_name, rng, dims):
    b = dims["B"]
    return [rng.standard_normal((b, IN)).astype(np.float32), np.tanh(rng.standard_normal((b, H))).astype(np.float32),
            (rng.standard_normal((IN, 3 * H)) / np.sqrt(IN)).astype(np.float32),
            (rng.standard_normal((H, 3 * H)) / np.sqrt(H)).astype(np.float32),
            (0.1 * rng.standard_normal(3 * H)).astype(np.float32)]
