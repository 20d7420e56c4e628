"""Logistic regression: sigmoid probabilities, a mean binary cross-entropy loss, and its gradient by hand."""
import agc
import agc.numpy as np


def sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


@agc.export
def predict_proba(x: agc.f32["N", 5], w: agc.f32[5], b: agc.f32[()]):
    return sigmoid(x @ w + b)


@agc.export
def bce_loss(x: agc.f32["N", 5], y: agc.f32["N"], w: agc.f32[5], b: agc.f32[()]):
    p = sigmoid(x @ w + b)
    eps = 1e-7
    return -np.mean(y * np.log(p + eps) + (1 - y) * np.log(1 - p + eps))


@agc.export
def bce_grad(x: agc.f32["N", 5], y: agc.f32["N"], w: agc.f32[5], b: agc.f32[()]):
    p = sigmoid(x @ w + b)
    r = p - y
    n = x.shape[0]
    return x.T @ r / n, np.sum(r) / n


def agc_test_inputs(export_name, rng, dims):
    n = dims["N"]
    x = rng.standard_normal((n, 5)).astype(np.float32)
    w = rng.standard_normal(5).astype(np.float32)
    b = np.float32(0.3)
    y = (rng.uniform(size=n) > 0.5).astype(np.float32)
    return [x, w, b] if export_name == "predict_proba" else [x, y, w, b]
