"""np.clip and the .clip method: gradient 1 inside the interval, 0 outside (float32)."""
import agc
import agc.numpy as np


def loss(x, w):
    return np.sum(np.clip(x, -0.5, 0.8) * w) + np.sum((x * w).clip(-1.0, 1.0) ** 2)


@agc.export
def clip_grad(x: agc.f32[12], w: agc.f32[12]):
    return agc.grad(loss, argnums=(0, 1))(x, w)


AGC_GRAD_CHECKS = {"clip_grad": ("loss", (0, 1))}


def agc_grad_inputs(name, rng):
    x = rng.uniform(-2, 2, 12)
    x = np.where(np.abs(x + 0.5) < 0.05, x + 0.2, x)
    x = np.where(np.abs(x - 0.8) < 0.05, x + 0.2, x)
    w = rng.uniform(-2, 2, 12)
    w = np.where(np.abs(np.abs(x * w) - 1) < 0.05, w * 1.2, w)
    return [[x.astype(np.float32), w.astype(np.float32)]]
