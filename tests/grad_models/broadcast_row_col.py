"""Broadcasting [N,1] against [1,M], [M] against [N,M], [N,1] against [M]: gradients sum over the stretched axes (float32)."""
import agc
import agc.numpy as np


def loss(col, row, vec, mat):
    outer = col * row                       # [N,1] * [1,M] -> [N,M]
    shifted = mat - vec                     # [N,M] - [M]
    mixed = col + vec                       # [N,1] + [M] -> [N,M]
    return np.sum(np.tanh(outer) * shifted) + np.sum(mixed ** 2 * 0.5)


@agc.export
def row_col_grad(col: agc.f32["N", 1], row: agc.f32[1, "M"], vec: agc.f32["M"], mat: agc.f32["N", "M"]):
    return agc.grad(loss, argnums=(0, 1, 2, 3))(col, row, vec, mat)


def bias_loss(b, x):
    return np.sum((x + b) ** 2)


@agc.export
def bias_grad(b: agc.f32[4], x: agc.f32["B", 4]):
    return agc.grad(bias_loss)(b, x)


AGC_GRAD_CHECKS = {
    "row_col_grad": ("loss", (0, 1, 2, 3)),
    "bias_grad": ("bias_loss", 0),
}
