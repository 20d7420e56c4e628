"""Closures capturing compile-time values and tensors; lambdas as activations."""
import agc
import agc.numpy as np


def make_scaler(factor):
    def scale(x):
        return x * factor
    return scale


def make_adder(t):
    return lambda x: x + t


relu = lambda x: np.maximum(x, 0.0)
ACTIVATIONS = [relu, np.tanh, lambda x: x * 0.5]


@agc.export
def closures(x: agc.f32[3, 4], t: agc.f32[4]):
    triple = make_scaler(3.0)
    add_t = make_adder(t)
    return add_t(triple(x))


@agc.export
def lambdas(x: agc.f32[3, 4]):
    out = x
    for act in ACTIVATIONS:
        out = act(out) + x
    square = lambda v, p=2: v ** p
    return square(out) + square(x, p=3)


@agc.export
def nested_closure(x: agc.f32[5]):
    def outer(a):
        def inner(b):
            return a * b + x
        return inner
    return outer(2.0)(x)
