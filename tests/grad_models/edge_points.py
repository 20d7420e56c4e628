"""Gradients where the textbook formula divides by zero or picks a branch, with autograd's
values: np.logaddexp at equal arguments (1/2 each)."""
import agc
import agc.numpy as np


def logaddexp_loss(x, y):
    return np.sum(np.logaddexp(x, y) * np.arange(1, 5))


@agc.export
def logaddexp_grad(x: agc.f32[4], y: agc.f32[4]):
    return agc.grad(logaddexp_loss, argnums=(0, 1))(x, y)


AGC_GRAD_CHECKS = {
    "logaddexp_grad": ("logaddexp_loss", (0, 1)),
}


def agc_grad_inputs(name, rng):
    f32 = lambda a: np.asarray(a, np.float32)
    x = f32([0.5, -1.0, 2.0, 0.0])
    return [[x, x.copy()], [x, f32([0.5, 1.0, -3.0, 0.0])]]  # equal, then mixed
