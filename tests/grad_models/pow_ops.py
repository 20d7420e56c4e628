"""Powers: x**k for integer and fractional k, x**y in both arguments, c**x (float32)."""
import agc
import agc.numpy as np


def loss(x, y):
    return (np.sum(x ** 3) + np.sum(x ** 0.5) + np.sum(x ** -1.5) + np.sum(x ** y)
            + np.sum(2.0 ** y) + np.sum(np.power(x, 2)))


@agc.export
def pow_grad(x: agc.f32[5], y: agc.f32[5]):
    return agc.grad(loss, argnums=(0, 1))(x, y)


def square_chain(x):
    return np.sum((x ** 2 + 1.0) ** 1.5)


@agc.export
def pow_chain_grad(x: agc.f32["N"]):
    return agc.grad(square_chain)(x)


AGC_GRAD_CHECKS = {
    "pow_grad": ("loss", (0, 1)),
    "pow_chain_grad": ("square_chain", 0),
}


def agc_grad_inputs(name, rng):
    if name == "pow_grad":
        return [[rng.uniform(0.3, 2.0, 5).astype(np.float32), rng.uniform(-1.5, 1.5, 5).astype(np.float32)]]
    return None
