"""Casts inside the differentiated function: float32 parameters computed in float64 and back, integer parts with no gradient (float32)."""
import agc
import agc.numpy as np


def loss(x, w):
    x64 = x.astype(np.float64)
    s = np.sum(np.exp(x64) * w.astype(np.float64))
    k = np.floor(x * 2.0).astype(np.int64)          # integer: no gradient through it
    return (s * 0.5).astype(x.dtype) + np.sum(x * k) + np.sum(w.astype(x.dtype) ** 2)


@agc.export
def cast_grad(x: agc.f32[5], w: agc.f32[5]):
    return agc.grad(loss, argnums=(0, 1))(x, w)


AGC_GRAD_CHECKS = {"cast_grad": ("loss", (0, 1))}


def agc_grad_inputs(name, rng):
    x = (np.floor(rng.uniform(-2, 2, 5) * 2) + 0.5) / 2      # away from the jumps of floor(2x)
    return [[x.astype(np.float32), rng.standard_normal(5).astype(np.float32)]]
