"""expand_dims, squeeze (all and one axis), None/np.newaxis indexing, broadcast_to (float32)."""
import agc
import agc.numpy as np


def loss(x, v, s):
    # x: [3,1,4], v: [4], s: [1,3,1]
    a = np.squeeze(x)                          # [3,4]
    b = np.expand_dims(v, 0)                   # [1,4]
    c = np.expand_dims(v, axis=-1)             # [4,1]
    d = x.squeeze(1)                           # [3,4]
    e = v[None, :] * s[0]                      # [3,4]
    f = v[:, np.newaxis]                       # [4,1]
    g = np.broadcast_to(v[None, :], (3, 4))    # [3,4] (autograd cannot differentiate a rank-extending broadcast_to)
    h = np.broadcast_to(s, (2, 3, 4))          # [2,3,4]
    return (np.sum(a * b) + np.sum((d @ c) ** 2) + np.sum(np.tanh(e)) + np.sum(f * f.T)
            + np.sum(g * a) + np.sum(h * np.arange(4)))


@agc.export
def expand_squeeze_grad(x: agc.f32[3, 1, 4], v: agc.f32[4], s: agc.f32[1, 3, 1]):
    return agc.grad(loss, argnums=(0, 1, 2))(x, v, s)


AGC_GRAD_CHECKS = {"expand_squeeze_grad": ("loss", (0, 1, 2))}
