"""Gradients through np.linalg.solve, inv and det (float64; the matrices well conditioned)."""
import agc
import agc.numpy as np


def loss(a, b):
    x = np.linalg.solve(a, b)
    return np.sum(x * x) + np.sum(np.linalg.inv(a) * 0.3) + np.linalg.det(a) * 0.1


@agc.export
def solve_grad(a: agc.f64[4, 4], b: agc.f64[4, 2]):
    return agc.grad(loss, argnums=(0, 1))(a, b)


def agc_grad_inputs(name, rng):
    a = rng.standard_normal((4, 4)) + 4.0 * np.eye(4)
    return [[a, rng.standard_normal((4, 2))], [a.T * 0.5, rng.standard_normal((4, 2))]]


AGC_GRAD_CHECKS = {
    "solve_grad": ("loss", (0, 1)),
}
