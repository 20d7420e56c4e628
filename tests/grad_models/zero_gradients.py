"""Arguments the loss does not depend on, or only through integer/boolean paths, get zero gradients of their own shape (float32)."""
import agc
import agc.numpy as np


def loss(x, unused, y):
    mask = y > 0                        # depends on y only through a comparison
    return np.sum(np.where(mask, x * x, 2.0 * x))


@agc.export
def zero_grad(x: agc.f32[4], unused: agc.f32[2, 3], y: agc.f32[4]):
    return agc.grad(loss, argnums=(0, 1, 2))(x, unused, y)


AGC_GRAD_CHECKS = {"zero_grad": ("loss", (0, 1, 2))}
