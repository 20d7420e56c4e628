"""Transposes: .T, np.transpose with and without axes, .transpose(axes), on 2-D and 3-D tensors (float32)."""
import agc
import agc.numpy as np


def loss(x, m):
    a = np.transpose(x, (2, 0, 1))        # [4,2,3]
    b = x.transpose((1, 2, 0))            # [3,4,2] (autograd's ArrayBox takes the tuple form only)
    c = np.transpose(x)                   # [4,3,2]
    return np.sum(a * np.arange(3)) + np.sum(np.tanh(b) @ m) + np.sum(c[..., 0] ** 2) + np.sum(m.T ** 3)


@agc.export
def transpose_grad(x: agc.f32[2, 3, 4], m: agc.f32[2, 5]):
    return agc.grad(loss, argnums=(0, 1))(x, m)


AGC_GRAD_CHECKS = {"transpose_grad": ("loss", (0, 1))}
