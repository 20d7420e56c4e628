"""np.concatenate along axes 0, 1 and -1, of pieces that are used again elsewhere (float32)."""
import agc
import agc.numpy as np


def loss(a, b, c):
    # a: [2,3], b: [4,3], c: [2,5]
    v = np.concatenate([a, b])                   # [6,3]
    h = np.concatenate((a, c, a), axis=1)        # [2,11]
    l = np.concatenate([a[:, :, None], a[:, :, None] * 2.0], axis=-1)   # [2,3,2]
    return np.sum(np.tanh(v) * np.arange(3)) + np.sum(h ** 2 * 0.1) + np.sum(l * l) + np.sum(b[0] * c[0, :3])


@agc.export
def concat_grad(a: agc.f32[2, 3], b: agc.f32[4, 3], c: agc.f32[2, 5]):
    return agc.grad(loss, argnums=(0, 1, 2))(a, b, c)


def symbolic_concat(x, y):
    return np.sum(np.sin(np.concatenate([x, y, x], axis=0)) * 1.5)


@agc.export
def symbolic_concat_grad(x: agc.f32["N", 2], y: agc.f32["M", 2]):
    return agc.grad(symbolic_concat, argnums=(0, 1))(x, y)


AGC_GRAD_CHECKS = {"concat_grad": ("loss", (0, 1, 2)), "symbolic_concat_grad": ("symbolic_concat", (0, 1))}
