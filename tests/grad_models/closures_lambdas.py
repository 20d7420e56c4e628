"""Differentiating a closure made by a factory and a bound method of a simple class (float32)."""
import agc
import agc.numpy as np


class Dense:
    def __init__(self, scale):
        self.scale = scale

    def loss(self, w, x):
        return np.sum(np.tanh(x @ w) * self.scale)


def make_loss(target):
    def inner(w, x):
        return np.sum((x @ w - target) ** 2)
    return inner


@agc.export
def closure_grad(w: agc.f32[3, 2], x: agc.f32["B", 3]):
    return agc.grad(make_loss(0.5))(w, x)


def closure_ref(w, x):
    return make_loss(0.5)(w, x)


@agc.export
def method_grad(w: agc.f32[3, 2], x: agc.f32["B", 3]):
    layer = Dense(1.5)
    return agc.grad(layer.loss)(w, x)


def method_ref(w, x):
    return Dense(1.5).loss(w, x)


AGC_GRAD_CHECKS = {
    "closure_grad": ("closure_ref", 0),
    "method_grad": ("method_ref", 0),
}
