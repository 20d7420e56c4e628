"""sin, cos, square, log1p, expm1, negative (float32)."""
import agc
import agc.numpy as np


def loss(x):
    return np.sum(np.sin(x) * np.cos(2.0 * x) + np.square(x) * 0.1 - np.negative(np.expm1(0.3 * x)))


def loss2(x, y):
    return np.sum(np.log1p(y) * np.sin(x)) - np.sum(np.cos(x * y))


@agc.export
def trig_grad(x: agc.f32[3, 5]):
    return agc.grad(loss)(x)


@agc.export
def log1p_grad(x: agc.f32[6], y: agc.f32[6]):
    return agc.grad(loss2, argnums=(0, 1))(x, y)


AGC_GRAD_CHECKS = {
    "trig_grad": ("loss", 0),
    "log1p_grad": ("loss2", (0, 1)),
}


def agc_grad_inputs(name, rng):
    if name == "log1p_grad":
        return [[rng.standard_normal(6).astype(np.float32), rng.uniform(0.0, 2.0, 6).astype(np.float32)]]
    return None
