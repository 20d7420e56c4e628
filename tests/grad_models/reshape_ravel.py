"""reshape (tuple, varargs, -1, method and function), ravel and flatten: gradients come back in the input's shape (float32)."""
import agc
import agc.numpy as np


def loss(x, w):
    a = x.reshape(3, 8)
    b = np.reshape(x, (4, -1))            # [4,6]
    c = x.ravel()                          # [24]
    d = np.ravel(a.T)
    e = b.reshape((2, 2, 6)).flatten()
    return np.sum(a @ w) + np.sum(np.sin(b) ** 2) + np.sum(c * d) + np.sum(e * np.arange(24) * 0.01)


@agc.export
def reshape_grad(x: agc.f32[2, 3, 4], w: agc.f32[8, 2]):
    return agc.grad(loss, argnums=(0, 1))(x, w)


def batch_reshape(x):
    return np.sum(np.tanh(x.reshape(x.shape[0], 2, 3)) * np.arange(3))


@agc.export
def symbolic_reshape_grad(x: agc.f32["B", 6]):
    return agc.grad(batch_reshape)(x)


AGC_GRAD_CHECKS = {"reshape_grad": ("loss", (0, 1)), "symbolic_reshape_grad": ("batch_reshape", 0)}
