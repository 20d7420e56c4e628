"""np.dot (1-D·1-D, 2-D·1-D, 2-D·2-D) and np.outer (float32)."""
import agc
import agc.numpy as np


def loss(a, b, m, n):
    s = np.dot(a, b)                  # ()
    mv = np.dot(m, b)                 # [3]
    mm = np.dot(m, n)                 # [3,2] (autograd's ArrayBox has no .dot method)
    o = np.outer(a, mv)               # [4,3]
    return s * 2.0 + np.sum(mv ** 2) + np.sum(np.tanh(mm)) + np.sum(o * 0.3)


@agc.export
def dot_grad(a: agc.f32[4], b: agc.f32[4], m: agc.f32[3, 4], n: agc.f32[4, 2]):
    return agc.grad(loss, argnums=(0, 1, 2, 3))(a, b, m, n)


AGC_GRAD_CHECKS = {"dot_grad": ("loss", (0, 1, 2, 3))}
