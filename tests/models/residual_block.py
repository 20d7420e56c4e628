"""A residual MLP block: layer norm, two projections with a tanh-approximated GELU, and a skip connection; stacked."""
import agc
import agc.numpy as np

D, F = 12, 24


def gelu(x):
    return 0.5 * x * (1.0 + np.tanh(0.7978845608 * (x + 0.044715 * x ** 3)))


def norm(x):
    mu = x.mean(axis=-1, keepdims=True)
    return (x - mu) / np.sqrt(((x - mu) ** 2).mean(axis=-1, keepdims=True) + 1e-5)


def block(x, w1, b1, w2, b2):
    return x + gelu(norm(x) @ w1 + b1) @ w2 + b2


@agc.export
def residual(x: agc.f32["B", D], w1: agc.f32[D, F], b1: agc.f32[F], w2: agc.f32[F, D], b2: agc.f32[D]):
    return block(x, w1, b1, w2, b2)


@agc.export
def residual_stack(x: agc.f32["B", D], w1: agc.f32[D, F], b1: agc.f32[F], w2: agc.f32[F, D], b2: agc.f32[D]):
    for scale in (1.0, 0.5, 0.25):
        x = block(x, w1 * scale, b1, w2, b2 * scale)
    return x


def agc_test_inputs(export_name, rng, dims):
    b = dims["B"]
    return [rng.standard_normal((b, D)).astype(np.float32),
            (rng.standard_normal((D, F)) / np.sqrt(D)).astype(np.float32),
            (0.1 * rng.standard_normal(F)).astype(np.float32),
            (rng.standard_normal((F, D)) / np.sqrt(F)).astype(np.float32),
            (0.1 * rng.standard_normal(D)).astype(np.float32)]
