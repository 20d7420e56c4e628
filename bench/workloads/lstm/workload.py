"""LSTM forward: one layer, batch 32, 64 time steps, input and hidden size 256, float32.

Gates in PyTorch's order (input, forget, cell, output) from one pre-activation
g = x_t @ W + h @ U + b with W: [I, 4H], U: [H, 4H]; the result is every
hidden state [T, B, H] and the last cell state [B, H]. Weights are uniform in
(-1/sqrt(H), 1/sqrt(H)) as PyTorch initialises them, from numpy's seed 0.
"""

import numpy as np

TITLE = "LSTM forward"
UNIT = "examples/s"
FRAMEWORKS = ("agc", "torch", "torch.compile", "jax", "tf")
TOL = 1e-3
T, B, I, H = 64, 32, 256, 256


def cases(quick):
    return [{"label": f"LSTM B{B} T{T} H{H}", "items": float(B)}]


def data(case):
    rng = np.random.default_rng(0)
    k = 1.0 / np.sqrt(H)
    u = lambda *s: rng.uniform(-k, k, size=s).astype(np.float32)  # noqa: E731
    return {"xs": rng.standard_normal((T, B, I), dtype=np.float32),
            "w": u(I, 4 * H), "u": u(H, 4 * H), "b": u(4 * H)}
