"""Batched matmul: [B,N,K] @ [K,M], [B,N,K] @ [B,K,M], [K] @ [B,K,M], broadcasting batch dims [2,1,N,K] @ [3,K,M] (float32)."""
import agc
import agc.numpy as np


def loss(x, w, y, v):
    a = x @ w                      # [B,3,4] @ [4,2] -> [B,3,2]
    b = np.matmul(x, y)            # [B,3,4] @ [B,4,5] -> [B,3,5]
    c = v @ y                      # [4] @ [B,4,5] -> [B,5]
    return np.sum(np.tanh(a)) + np.sum(b ** 2) * 0.1 + np.sum(c * np.arange(5))


@agc.export
def batched_grad(x: agc.f32["B", 3, 4], w: agc.f32[4, 2], y: agc.f32["B", 4, 5], v: agc.f32[4]):
    return agc.grad(loss, argnums=(0, 1, 2, 3))(x, w, y, v)


def bcast(p, q):
    return np.sum(np.cos(p @ q))     # [2,1,3,4] @ [3,4,2] -> [2,3,3,2]


@agc.export
def broadcast_batch_grad(p: agc.f32[2, 1, 3, 4], q: agc.f32[3, 4, 2]):
    return agc.grad(bcast, argnums=(0, 1))(p, q)


AGC_GRAD_CHECKS = {
    "batched_grad": ("loss", (0, 1, 2, 3)),
    "broadcast_batch_grad": ("bcast", (0, 1)),
}
