"""Strided slices of a run-time-sized axis: x[::2], x[1::2], x[::-2] on a symbolic dim (float32)."""
import agc
import agc.numpy as np


def even_odd(x):
    return np.sum(x[::2] ** 2) + np.sum(np.sin(x[1::2]) * 3.0) + np.sum(x[::-2] * 0.5)


@agc.export
def strided_grad(x: agc.f32["N", 3]):
    return agc.grad(even_odd)(x)


AGC_GRAD_CHECKS = {"strided_grad": ("even_odd", 0)}

# The adjoint of a strided slice of a run-time-sized axis is not built yet;
# the build must say so cleanly.
AGC_KNOWN_UNSUPPORTED = "is not supported yet"
