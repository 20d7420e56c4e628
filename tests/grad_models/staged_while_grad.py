"""A staged `while` inside the differentiated function: a trip count that depends on the data (float32 and float64)."""
import agc
import agc.numpy as np


def shrink(x, a):
    # halve-and-mix until the norm is small; the trip count depends on x (and is constant near x)
    y = x
    k = 0
    while np.sum(y * y) > 0.1:
        y = np.tanh(y * a) * 0.5
        k = k + 1
    return np.sum(y * np.arange(1, 4)) + np.sum(x * 0.1)


@agc.export
def while_grad(x: agc.f32[3], a: agc.f32[()]):
    return agc.grad(shrink, argnums=(0, 1))(x, a)


def newton_sqrt(c, n):
    # n Newton steps for sqrt(c), driven by a staged counter
    y = c * 0 + 1.0
    i = 0
    while i < n:
        y = 0.5 * (y + c / y)
        i = i + 1
    return np.sum(y)


@agc.export
def newton_grad(c: agc.f64[4], n: agc.i64[()]):
    return agc.grad(newton_sqrt)(c, n)


AGC_GRAD_CHECKS = {"while_grad": ("shrink", (0, 1)), "newton_grad": ("newton_sqrt", 0)}


def agc_grad_inputs(name, rng):
    if name == "while_grad":
        return [[np.array(x, np.float32), np.float32(a)]
                for x, a in (([2.0, -1.0, 3.0], 0.9), ([0.1, 0.1, 0.1], 1.2), ([5.0, 4.0, -6.0], 1.5))]
    c = rng.uniform(0.5, 4.0, 4)
    return [[c, np.int64(n)] for n in (0, 1, 3, 12)]
