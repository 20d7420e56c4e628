"""np.max / np.min / .max over axes with keepdims, axis=None: the gradient goes to the extremum (no ties) (float32)."""
import agc
import agc.numpy as np


def loss(x):
    # x: [3,5]
    a = np.max(x, axis=1)                      # [3]
    b = np.min(x, axis=0, keepdims=True)       # [1,5]
    c = x.max()
    d = np.amin(x, axis=-1, keepdims=True)     # [3,1]
    return np.sum(a * np.arange(1, 4)) + np.sum(b ** 2) + c * 3.0 + np.sum(np.exp(x - d))


@agc.export
def max_min_grad(x: agc.f32[3, 5]):
    return agc.grad(loss)(x)


def logsumexp(z):
    m = np.max(z, axis=-1, keepdims=True)
    return np.sum(np.log(np.sum(np.exp(z - m), axis=-1)) + m[:, 0])


@agc.export
def logsumexp_grad(z: agc.f32["B", 6]):
    return agc.grad(logsumexp)(z)


AGC_GRAD_CHECKS = {"max_min_grad": ("loss", 0), "logsumexp_grad": ("logsumexp", 0)}


def agc_grad_inputs(name, rng):
    if name == "max_min_grad":
        # distinct values: a permutation, scaled, so no ties
        return [[(rng.permutation(15).reshape(3, 5) * 0.37 - 2.5).astype(np.float32)]]
    return None
