"""np.mean / .mean over axes with keepdims, and np.var / np.std (float32)."""
import agc
import agc.numpy as np


def loss(x):
    # x: [B,3,4]
    m0 = np.mean(x, axis=0)
    m12 = x.mean(axis=(1, 2), keepdims=True)
    return np.sum(m0 ** 3) + np.sum((x - m12) ** 2) * 0.2 + np.mean(x) ** 2


@agc.export
def mean_grad(x: agc.f32["B", 3, 4]):
    return agc.grad(loss)(x)


def spread(x):
    return np.sum(np.var(x, axis=1)) + np.sum(np.std(x, axis=0) * np.arange(x.shape[1])) + x.var()


@agc.export
def var_std_grad(x: agc.f32[6, 4]):
    return agc.grad(spread)(x)


AGC_GRAD_CHECKS = {"mean_grad": ("loss", 0), "var_std_grad": ("spread", 0)}
