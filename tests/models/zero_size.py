"""Arrays with no elements: a zero batch through matmul, sums (0), broadcasting and concatenation."""
import agc
import agc.numpy as np


@agc.export
def empty_batch(x: agc.f32["B", 4], w: agc.f32[4, 3]):
    y = x @ w + 1.0
    return y, np.sum(x, axis=0), np.sum(y), x.T @ x


@agc.export
def empty_concat(x: agc.f32["B", 2], y: agc.f32["C", 2]):
    return np.concatenate([x, y]), np.sum(np.concatenate([x, y]), axis=0)


def agc_test_inputs(export_name, rng, dims):
    if export_name == "empty_batch":
        return [np.zeros((0, 4), np.float32), rng.standard_normal((4, 3)).astype(np.float32)]
    return [np.zeros((0, 2), np.float32), rng.standard_normal((dims["C"], 2)).astype(np.float32)]
