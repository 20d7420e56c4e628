"""np.where with masks from every comparison and logical ops; gradients flow to the chosen side only (float32)."""
import agc
import agc.numpy as np


def loss(x, y):
    a = np.where(x > y, x * y, x - y)
    b = np.where(x <= 0.2, np.exp(x), y * 3.0)
    c = np.where((x >= -0.5) & (y < 0.5), x ** 2, 0.0)
    d = np.where(np.logical_or(x == 1.0, y != 0.0), y, x)
    e = np.where(np.greater(y, x), 1.0, x)
    return np.sum(a + b + c * d + e)


@agc.export
def where_grad(x: agc.f32[4, 5], y: agc.f32[4, 5]):
    return agc.grad(loss, argnums=(0, 1))(x, y)


def huber(r, delta):
    small = np.abs(r) < delta
    return np.mean(np.where(small, 0.5 * r ** 2, delta * (np.abs(r) - 0.5 * delta)))


@agc.export
def huber_grad(r: agc.f32["N"]):
    return agc.grad(huber)(r, 1.0)


def huber_args(r):
    return (r, 1.0)


AGC_GRAD_CHECKS = {
    "where_grad": ("loss", (0, 1)),
    "huber_grad": ("huber", 0, {"args": "huber_args"}),
}


def agc_grad_inputs(name, rng):
    if name == "huber_grad":
        return [[(rng.standard_normal(n) * 2).astype(np.float32)] for n in (9, 4)]
    return None
