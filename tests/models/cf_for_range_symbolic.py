"""`for i in range(...)` over run-time sizes (`x.shape[0]` of a symbolic dim), with offsets in the bounds."""
import agc
import agc.numpy as np


@agc.export
def prefix_products(x: agc.f64["T", 2]):
    p = np.ones(2, dtype=np.float64)
    rows = []
    for t in range(x.shape[0]):
        p = p * x[t]
        rows.append(p)
    return np.stack(rows)


@agc.export
def differences(x: agc.f32["T"]):
    total = np.zeros((), dtype=np.float32)
    for t in range(x.shape[0] - 1):
        total = total + np.abs(x[t + 1] - x[t])
    return total


@agc.export
def from_one(x: agc.f32["T", 3]):
    best = x[0]
    for t in range(1, x.shape[0]):
        best = np.maximum(best, x[t])
    return best

