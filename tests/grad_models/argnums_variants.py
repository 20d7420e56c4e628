"""argnums: an int other than 0, a tuple in any order, negative numbers, a one-element tuple (float32)."""
import agc
import agc.numpy as np


def f(a, b, c):
    return np.sum(np.tanh(a * b) + b * c ** 2 - a * c)


@agc.export
def second_arg(a: agc.f32[3], b: agc.f32[3], c: agc.f32[3]):
    return agc.grad(f, argnums=1)(a, b, c)


@agc.export
def tuple_0_2(a: agc.f32[3], b: agc.f32[3], c: agc.f32[3]):
    return agc.grad(f, argnums=(0, 2))(a, b, c)


@agc.export
def tuple_reversed(a: agc.f32[3], b: agc.f32[3], c: agc.f32[3]):
    gc, ga = agc.grad(f, argnums=(2, 0))(a, b, c)
    return gc, ga


@agc.export
def negative(a: agc.f32[3], b: agc.f32[3], c: agc.f32[3]):
    return agc.grad(f, argnums=-1)(a, b, c)


@agc.export
def one_tuple(a: agc.f32[3], b: agc.f32[3], c: agc.f32[3]):
    (gb,) = agc.grad(f, argnums=(1,))(a, b, c)
    return gb


@agc.export
def all_three(a: agc.f32[3], b: agc.f32[3], c: agc.f32[3]):
    return agc.grad(f, argnums=(0, 1, 2))(a, b, c)


AGC_GRAD_CHECKS = {
    "second_arg": ("f", 1),
    "tuple_0_2": ("f", (0, 2)),
    "tuple_reversed": ("f", (2, 0)),
    "negative": ("f", -1),
    "one_tuple": ("f", (1,)),
    "all_three": ("f", (0, 1, 2)),
}
