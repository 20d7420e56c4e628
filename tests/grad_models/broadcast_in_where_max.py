"""Broadcasting in np.where (conditions from comparisons of [N,1] with [M], a [N,1] condition for [N,M] branches,
scalar branches) and in np.maximum / np.minimum between [N,1], [M] and [N,M] (float32). (Branches of np.where
whose shapes differ from the result are left out: autograd, the eager oracle, cannot differentiate them.)"""
import agc
import agc.numpy as np


def loss(col, row, x):
    # col: [N,1], row: [M], x: [N,M]
    cond = col > row                                  # [N,M] from [N,1] vs [M]
    a = np.where(cond, x * col, x + row ** 2)         # broadcast condition, branches broadcast before the where
    b = np.where(x > 0, x, np.broadcast_to(col, x.shape))
    e = np.where(col > 0.0, x, -x)                    # [N,1] condition, [N,M] branches
    c = np.where(row > 0.0, 1.0, row)                 # scalar branch, [M] result
    d = np.maximum(col, row) + np.minimum(x, row)     # [N,M]
    return np.sum(a * x) + np.sum(np.tanh(b)) + np.sum(c * row) + np.sum(d ** 2) * 0.1 + np.sum(e * x)


@agc.export
def where_broadcast_grad(col: agc.f32["N", 1], row: agc.f32["M"], x: agc.f32["N", "M"]):
    return agc.grad(loss, argnums=(0, 1, 2))(col, row, x)


AGC_GRAD_CHECKS = {"where_broadcast_grad": ("loss", (0, 1, 2))}
