"""Gradients through np.linspace with run-time bounds (the last sample is `stop` itself) or a
run-time number of samples, and through np.arange with a run-time length (float64)."""
import agc
import agc.numpy as np


def curve(a, b, w):
    t = np.linspace(a, b, 7)
    return np.sum(np.sin(t) * w) + np.sum(np.linspace(a * 2, b, 4) ** 2)


def ramp(a, x):
    k = np.arange(x.shape[0])
    return np.sum(np.cos(a * k) * x)


def half(x):
    n = x.shape[0] // 2
    w = np.linspace(0.0, 1.0, n)
    return np.sum(np.sin(w * x[0, 0])) + np.sum(np.zeros(n) + x[0, 1] * np.arange(n))


@agc.export
def curve_grad(a: agc.f64[()], b: agc.f64[()], w: agc.f64[7]):
    return agc.grad(curve, argnums=(0, 1, 2))(a, b, w)


@agc.export
def ramp_grad(a: agc.f64[()], x: agc.f64["N"]):
    return agc.grad(ramp, argnums=(0, 1))(a, x)


@agc.export
def half_grad(x: agc.f64["N", 3]):
    return agc.grad(half)(x)


AGC_GRAD_CHECKS = {
    "half_grad": ("half", 0),
    "curve_grad": ("curve", (0, 1, 2)),
    "ramp_grad": ("ramp", (0, 1)),
}
