"""Scaled dot-product self-attention (batched matmul, transpose of the last two axes, softmax) w.r.t. the projections and inputs (float32)."""
import agc
import agc.numpy as np


def softmax(z):
    z = z - np.max(z, axis=-1, keepdims=True)
    e = np.exp(z)
    return e / np.sum(e, axis=-1, keepdims=True)


def loss(wq, wk, wv, x):
    q, k, v = x @ wq, x @ wk, x @ wv                        # [B,T,D]
    s = q @ np.transpose(k, (0, 2, 1)) / np.sqrt(4.0)       # [B,T,T]
    out = softmax(s) @ v                                      # [B,T,D]
    return np.sum(out * np.arange(4)) + np.sum(out ** 2) * 0.1


@agc.export
def attention_grad(wq: agc.f32[5, 4], wk: agc.f32[5, 4], wv: agc.f32[5, 4], x: agc.f32["B", "T", 5]):
    return agc.grad(loss, argnums=(0, 1, 2, 3))(wq, wk, wv, x)


AGC_GRAD_CHECKS = {"attention_grad": ("loss", (0, 1, 2, 3))}
