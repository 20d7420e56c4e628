"""+, -, * with tensors and Python scalars on either side, unary minus, x used many times (float32)."""
import agc
import agc.numpy as np


def loss(x, y):
    z = 2.0 - x * y + (3.0 * x - y) * (x + 1.0) - -y
    return np.sum(z * z) * 0.1 + np.sum(np.add(x, y) * np.subtract(x, y) * np.multiply(x, 0.5))


@agc.export
def arith_grad(x: agc.f32[4, 4], y: agc.f32[4, 4]):
    return agc.grad(loss, argnums=(0, 1))(x, y)


def reuse(x):
    a = x * x
    b = a * x + a
    return np.sum(b * a - x)


@agc.export
def reuse_grad(x: agc.f32["N"]):
    return agc.grad(reuse)(x)


AGC_GRAD_CHECKS = {
    "arith_grad": ("loss", (0, 1)),
    "reuse_grad": ("reuse", 0),
}
