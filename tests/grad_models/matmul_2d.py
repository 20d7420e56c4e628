"""2-D matmul (@ and np.matmul) w.r.t. both operands, chained, with a transposed operand (float32)."""
import agc
import agc.numpy as np


def loss(a, b, c):
    return np.sum(np.tanh(a @ b) @ c) + np.sum(np.matmul(a, b) ** 2) * 0.1 + np.sum(a.T @ a * 0.05)


@agc.export
def matmul_grad(a: agc.f32["N", 4], b: agc.f32[4, 5], c: agc.f32[5, 2]):
    return agc.grad(loss, argnums=(0, 1, 2))(a, b, c)


AGC_GRAD_CHECKS = {"matmul_grad": ("loss", (0, 1, 2))}
