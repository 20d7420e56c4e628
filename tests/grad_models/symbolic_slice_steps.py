"""Strided slices of a run-time-sized axis: x[::2], x[1::2], x[::-2], x[-2::-3], x[1:-1:3] on a symbolic dim (float32)."""
import agc
import agc.numpy as np


def even_odd(x):
    return (np.sum(x[::2] ** 2) + np.sum(np.sin(x[1::2]) * 3.0) + np.sum(x[::-2] * 0.5)
            + np.sum(np.cos(x[-2::-3])) + np.sum(x[1:-1:3] ** 3))


@agc.export
def strided_grad(x: agc.f32["N", 3]):
    return agc.grad(even_odd)(x)


AGC_GRAD_CHECKS = {"strided_grad": ("even_odd", 0)}
