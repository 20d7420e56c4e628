"""Recursion whose depth is a run-time scalar: x**n by repeated multiplication, and a binary recursion of run-time depth (float64)."""
import agc
import agc.numpy as np


def power(x, n):
    if n <= 0:
        return np.ones_like(x)
    return x * power(x, n - 1)


def power_loss(x, n):
    return np.sum(power(x, n))


@agc.export
def power_grad(x: agc.f64[4], n: agc.i64[()]):
    return agc.grad(power_loss)(x, n)


def split(x, depth):
    if depth == 0:
        return np.sin(x)
    return split(x * 0.5, depth - 1) + split(x * x, depth - 1) * 0.25


def split_loss(x, depth):
    return np.sum(split(x, depth))


@agc.export
def split_grad(x: agc.f64[3], depth: agc.i32[()]):
    return agc.grad(split_loss)(x, depth)


AGC_GRAD_CHECKS = {"power_grad": ("power_loss", 0), "split_grad": ("split_loss", 0)}


def agc_grad_inputs(name, rng):
    if name == "power_grad":
        x = rng.uniform(-1.5, 1.5, 4)
        return [[x, np.int64(n)] for n in (0, 1, 6)]
    x = rng.uniform(-1.0, 1.0, 3)
    return [[x, np.int32(d)] for d in (0, 1, 4)]
