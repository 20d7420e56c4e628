"""agc.grad of a lambda (no captured staged values) (float32)."""
import agc
import agc.numpy as np


@agc.export
def lambda_grad(w: agc.f32[3, 2], x: agc.f32["B", 3]):
    return agc.grad(lambda a, b: np.sum(np.sin(b @ a)))(w, x)


def lambda_ref(w, x):
    return np.sum(np.sin(x @ w))


AGC_GRAD_CHECKS = {"lambda_grad": ("lambda_ref", 0)}
