"""Staged loops (run-time T) inside a compile-time loop over layers: each layer unrolls into its own staged loop."""
import agc
import agc.numpy as np

LAYERS = 3


@agc.export
def layered_scan(xs: agc.f32["T", 4], w: agc.f32[3, 4, 4]):
    h = np.zeros(4, dtype=np.float32)
    for layer in range(LAYERS):
        for t in range(xs.shape[0]):
            h = np.tanh(xs[t] @ w[layer] + h * 0.5)
        h = h * (layer + 1)
    return h


@agc.export
def per_column_scan(x: agc.f32["T", 3]):
    results = []
    for c in range(3):
        m = x[0, c]
        for t in range(x.shape[0]):
            if x[t, c] > m:
                m = x[t, c]
        results.append(m)
    return np.stack(results)
