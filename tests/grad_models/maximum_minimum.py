"""np.maximum / np.minimum between tensors and with scalars (relu, leaky relu, clamps); no ties (float32)."""
import agc
import agc.numpy as np


def loss(x, y):
    relu = np.maximum(x, 0.0)
    leaky = np.maximum(x, 0.1 * x)
    return np.sum(np.maximum(x, y) * 2.0 + np.minimum(x, y) ** 2) + np.sum(relu * y) + np.sum(np.minimum(leaky, 0.5))


@agc.export
def maxmin_grad(x: agc.f32[5, 3], y: agc.f32[5, 3]):
    return agc.grad(loss, argnums=(0, 1))(x, y)


def mlp_relu(w, x):
    return np.sum(np.minimum(np.maximum(x @ w, 0.0), 1.0) ** 2)


@agc.export
def relu_layer_grad(w: agc.f32[4, 6], x: agc.f32["B", 4]):
    return agc.grad(mlp_relu)(w, x)


AGC_GRAD_CHECKS = {
    "maxmin_grad": ("loss", (0, 1)),
    "relu_layer_grad": ("mlp_relu", 0),
}
