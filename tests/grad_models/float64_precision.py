"""float64 gradients, checked to float64 tolerances: a chain of transcendental ops and a matmul (float64)."""
import agc
import agc.numpy as np


def loss(x, w):
    z = np.exp(np.sin(x @ w)) / (1.0 + np.abs(x @ w))
    return np.sum(np.log(1.0 + z * z)) + np.sum(np.sqrt(w * w + 1.0) ** 3)


@agc.export
def f64_grad(x: agc.f64["B", 4], w: agc.f64[4, 3]):
    return agc.grad(loss, argnums=(0, 1))(x, w)


AGC_GRAD_CHECKS = {"f64_grad": ("loss", (0, 1))}
