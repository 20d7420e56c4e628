"""Division: x / y in both arguments, reciprocals, Python scalars on either side (float32)."""
import agc
import agc.numpy as np


def loss(x, y):
    return np.sum(x / y) + np.sum(1.0 / x) + np.sum(y / (x * x + 1.0)) + np.sum(np.divide(3.0, y)) + np.sum(x / 4.0)


@agc.export
def div_grad(x: agc.f32[3, 4], y: agc.f32[3, 4]):
    return agc.grad(loss, argnums=(0, 1))(x, y)


def normalize(x):
    return np.sum((x / np.sum(x * x)) ** 2 * np.arange(x.shape[0]))


@agc.export
def normalize_grad(x: agc.f32[6]):
    return agc.grad(normalize)(x)


AGC_GRAD_CHECKS = {
    "div_grad": ("loss", (0, 1)),
    "normalize_grad": ("normalize", 0),
}


def agc_grad_inputs(name, rng):
    if name == "div_grad":
        sign = rng.choice([-1.0, 1.0], (3, 4))
        return [[(rng.uniform(0.3, 2.0, (3, 4)) * sign).astype(np.float32),
                 rng.uniform(0.5, 2.0, (3, 4)).astype(np.float32)]]
    return None
