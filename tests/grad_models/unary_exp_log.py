"""exp and log: d exp = exp, d log = 1/x, composed with sums and products (float32)."""
import agc
import agc.numpy as np


def loss(x, y):
    return np.sum(np.exp(0.5 * x) * np.log(y)) + np.sum(np.log(np.exp(x) + y))


@agc.export
def exp_log_grad(x: agc.f32[4, 3], y: agc.f32[4, 3]):
    return agc.grad(loss, argnums=(0, 1))(x, y)


def log_only(y):
    return np.mean(np.log(y) ** 2)


@agc.export
def log_grad(y: agc.f32["N"]):
    return agc.grad(log_only)(y)


AGC_GRAD_CHECKS = {
    "exp_log_grad": ("loss", (0, 1)),
    "log_grad": ("log_only", 0),
}


def agc_grad_inputs(name, rng):
    if name == "exp_log_grad":
        return [[rng.standard_normal((4, 3)).astype(np.float32), rng.uniform(0.3, 3.0, (4, 3)).astype(np.float32)]]
    return [[rng.uniform(0.2, 4.0, n).astype(np.float32)] for n in (5, 1, 9)]
