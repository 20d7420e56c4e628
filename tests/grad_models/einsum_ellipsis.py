"""Gradients through np.einsum with '...' (a batched matmul with broadcasting, a batched
matrix-vector product over a run-time batch) and the sublist form (float64)."""
import agc
import agc.numpy as np


def batched(a, b, x):
    y = np.einsum("...ij,...jk->...ik", a, b)
    return np.sum(np.tanh(y) ** 2) + np.sum(np.einsum("...ij,...j->...i", x, x[:, 0]) ** 3)


def sublist(a, b):
    return np.sum(np.sin(np.einsum(a, [0, 1], b, [1, 2], [0, 2])))


@agc.export
def batched_grad(a: agc.f64[2, 1, 3, 4], b: agc.f64[5, 4, 2], x: agc.f64["B", 3, 3]):
    return agc.grad(batched, argnums=(0, 1, 2))(a, b, x)


@agc.export
def sublist_grad(a: agc.f64[3, 4], b: agc.f64[4, 2]):
    return agc.grad(sublist, argnums=(0, 1))(a, b)


AGC_GRAD_CHECKS = {
    "batched_grad": ("batched", (0, 1, 2)),
    "sublist_grad": ("sublist", (0, 1)),
}
