"""Staged `if` on tensors with symbolic dims; both branches give the same symbolic shape."""
import agc
import agc.numpy as np


@agc.export
def shifted(x: agc.f32["B", "D"]):
    if np.mean(x) > 0:
        y = x[1:] - x[:-1]
    else:
        y = x[:-1] * 2
    return y


@agc.export
def row_or_col_mean(x: agc.f32["B", "D"]):
    if x.shape[0] > x.shape[1]:          # compares two run-time sizes
        m = np.mean(x, axis=0)
        m = np.sum(m) + np.zeros(x.shape[1], dtype=np.float32)
    else:
        m = np.max(x, axis=0)
    return m


def agc_test_inputs(export_name, rng, dims):
    x = rng.standard_normal((dims["B"], dims["D"])).astype(np.float32)
    if export_name == "shifted":
        x = np.abs(x) if dims["B"] % 2 else -np.abs(x)
    return [x]
