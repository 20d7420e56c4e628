"""Broadcasting a rank-0 tensor against vectors, matrices and rank-3 tensors: its gradient is a full sum (float32)."""
import agc
import agc.numpy as np


def loss(s, v, m, t):
    return np.sum((v * s) ** 2) + np.sum(np.tanh(m - s)) + np.sum(t / (s * s + 1.0)) + s * s * 3.0


@agc.export
def scalar_grad(s: agc.f32[()], v: agc.f32[5], m: agc.f32[3, 4], t: agc.f32[2, 3, 2]):
    return agc.grad(loss, argnums=(0, 1, 2, 3))(s, v, m, t)


def scale_only(s, x):
    return np.mean(np.exp(s * x))


@agc.export
def scalar_only_grad(s: agc.f32[()], x: agc.f32["N", "M"]):
    return agc.grad(scale_only)(s, x)


AGC_GRAD_CHECKS = {
    "scalar_grad": ("loss", (0, 1, 2, 3)),
    "scalar_only_grad": ("scale_only", 0),
}
