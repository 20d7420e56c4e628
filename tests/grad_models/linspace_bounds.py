"""Gradients through np.linspace with run-time bounds (the last sample is `stop` itself) and
through np.arange with a run-time length (float64)."""
import agc
import agc.numpy as np


def curve(a, b, w):
    t = np.linspace(a, b, 7)
    return np.sum(np.sin(t) * w) + np.sum(np.linspace(a * 2, b, 4) ** 2)


def ramp(a, x):
    k = np.arange(x.shape[0])
    return np.sum(np.cos(a * k) * x)


@agc.export
def curve_grad(a: agc.f64[()], b: agc.f64[()], w: agc.f64[7]):
    return agc.grad(curve, argnums=(0, 1, 2))(a, b, w)


@agc.export
def ramp_grad(a: agc.f64[()], x: agc.f64["N"]):
    return agc.grad(ramp, argnums=(0, 1))(a, x)


AGC_GRAD_CHECKS = {
    "curve_grad": ("curve", (0, 1, 2)),
    "ramp_grad": ("ramp", (0, 1)),
}
