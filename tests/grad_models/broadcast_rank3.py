"""Broadcasting across ranks: [B,1,C] with [A,1], [C] with [B,A,C], [B,A,1] with [1,A,C] (float32)."""
import agc
import agc.numpy as np


def loss(p, q, r, s):
    # p: [2,1,4], q: [3,1], r: [4], s: [1,3,4]
    x = p * q          # [2,3,4]
    y = x + r          # [2,3,4]
    z = np.sin(y) * s  # [2,3,4]
    return np.sum(z * z) + np.sum(q * r)


@agc.export
def rank3_grad(p: agc.f32[2, 1, 4], q: agc.f32[3, 1], r: agc.f32[4], s: agc.f32[1, 3, 4]):
    return agc.grad(loss, argnums=(0, 1, 2, 3))(p, q, r, s)


def keepdim_stats(x, g):
    # x: [B,A,C]; g: [B,A,1]
    m = np.mean(x, axis=2, keepdims=True)
    return np.sum((x - m) * g) + np.sum(g ** 2 * m)


@agc.export
def keepdim_broadcast_grad(x: agc.f32["B", 3, 4], g: agc.f32["B", 3, 1]):
    return agc.grad(keepdim_stats, argnums=(0, 1))(x, g)


AGC_GRAD_CHECKS = {
    "rank3_grad": ("loss", (0, 1, 2, 3)),
    "keepdim_broadcast_grad": ("keepdim_stats", (0, 1)),
}
