"""matmul with 1-D operands: vector @ matrix, matrix @ vector, vector @ vector (inner product) (float32)."""
import agc
import agc.numpy as np


def loss(v, m, u):
    vm = v @ m            # [3] @ [3,4] -> [4]
    mu = m @ u            # [3,4] @ [4] -> [3]
    vv = vm @ u           # [4] @ [4] -> ()
    return np.sum(np.sin(vm)) + np.sum(mu * v) + vv ** 2 * 0.1 + np.matmul(v, v)


@agc.export
def matvec_grad(v: agc.f32[3], m: agc.f32[3, 4], u: agc.f32[4]):
    return agc.grad(loss, argnums=(0, 1, 2))(v, m, u)


def quad(x, A):
    return x @ A @ x


@agc.export
def quadratic_form_grad(x: agc.f32["N"], A: agc.f32["N", "N"]):
    return agc.grad(quad, argnums=(0, 1))(x, A)


AGC_GRAD_CHECKS = {
    "matvec_grad": ("loss", (0, 1, 2)),
    "quadratic_form_grad": ("quad", (0, 1)),
}
