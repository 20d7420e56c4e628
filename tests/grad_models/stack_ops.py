"""np.stack along axes 0, 1 and -1, of a list built in Python (float32)."""
import agc
import agc.numpy as np


def loss(a, b):
    s0 = np.stack([a, b, a * b])              # [3,2,4]
    s1 = np.stack((a, b), axis=1)             # [2,2,4]
    s2 = np.stack([np.sin(a), b], axis=-1)    # [2,4,2]
    return np.sum(s0 * np.arange(4)) + np.sum(np.tanh(s1) ** 2) + np.sum(s2[..., 0] * s2[..., 1])


@agc.export
def stack_grad(a: agc.f32[2, 4], b: agc.f32[2, 4]):
    return agc.grad(loss, argnums=(0, 1))(a, b)


AGC_GRAD_CHECKS = {"stack_grad": ("loss", (0, 1))}
