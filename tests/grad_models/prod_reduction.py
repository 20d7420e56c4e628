"""np.prod over axes and in total (float32)."""
import agc
import agc.numpy as np


def loss(x):
    return np.sum(np.prod(x, axis=1)) + np.prod(x[0]) * 2.0 + np.sum(x.prod(axis=0, keepdims=True) ** 2)


@agc.export
def prod_grad(x: agc.f32[3, 4]):
    return agc.grad(loss)(x)


AGC_GRAD_CHECKS = {"prod_grad": ("loss", 0)}


def agc_grad_inputs(name, rng):
    x = rng.uniform(0.5, 1.5, (3, 4)) * rng.choice([-1.0, 1.0], (3, 4))
    return [[x.astype(np.float32)]]
