"""Layer normalisation (mean, variance, rsqrt via ** -0.5, gain and bias) w.r.t. inputs and parameters (float32)."""
import agc
import agc.numpy as np


def layer_norm(x, g, b):
    mu = np.mean(x, axis=-1, keepdims=True)
    var = np.mean((x - mu) ** 2, axis=-1, keepdims=True)
    return (x - mu) * (var + 1e-5) ** -0.5 * g + b


def loss(x, g, b, w):
    return np.sum(np.tanh(layer_norm(x, g, b)) * w)


@agc.export
def layer_norm_grad(x: agc.f32["B", 6], g: agc.f32[6], b: agc.f32[6], w: agc.f32["B", 6]):
    return agc.grad(loss, argnums=(0, 1, 2))(x, g, b, w)


AGC_GRAD_CHECKS = {"layer_norm_grad": ("loss", (0, 1, 2))}
