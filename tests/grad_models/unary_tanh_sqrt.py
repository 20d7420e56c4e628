"""tanh and sqrt, alone and chained (float32)."""
import agc
import agc.numpy as np


def loss(x, y):
    return np.sum(np.tanh(x) * np.sqrt(y)) + np.sum(np.sqrt(np.tanh(x) ** 2 + 1.0))


@agc.export
def tanh_sqrt_grad(x: agc.f32["B", 4], y: agc.f32["B", 4]):
    return agc.grad(loss, argnums=(0, 1))(x, y)


def deep_tanh(x):
    return np.sum(np.tanh(np.tanh(np.tanh(2.0 * x) * 1.5) - 0.3))


@agc.export
def nested_tanh_grad(x: agc.f32[7]):
    return agc.grad(deep_tanh)(x)


AGC_GRAD_CHECKS = {
    "tanh_sqrt_grad": ("loss", (0, 1)),
    "nested_tanh_grad": ("deep_tanh", 0),
}


def agc_grad_inputs(name, rng):
    if name == "tanh_sqrt_grad":
        return [[rng.standard_normal((b, 4)).astype(np.float32), rng.uniform(0.2, 3.0, (b, 4)).astype(np.float32)]
                for b in (3, 6)]
    return None
