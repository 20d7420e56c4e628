"""Compile-time arguments pass through agc.grad: Python floats, strings, bools, functions, tuples of ints (float32)."""
import agc
import agc.numpy as np


def act(name, z):
    if name == "tanh":
        return np.tanh(z)
    if name == "relu":
        return np.maximum(z, 0.0)
    return z


def loss(w, x, l2, activation, use_bias, axes, f):
    z = x @ w
    if use_bias:
        z = z + 0.5
    h = act(activation, z)
    return np.sum(f(h)) + l2 * np.sum(w ** 2) + np.sum(np.mean(h, axis=axes))


def cube(h):
    return h ** 3


@agc.export
def static_args_grad(w: agc.f32[3, 4], x: agc.f32["B", 3]):
    return agc.grad(loss)(w, x, 0.01, "tanh", True, 0, cube)


@agc.export
def static_args_grad_relu(w: agc.f32[3, 4], x: agc.f32["B", 3]):
    return agc.grad(loss)(w, x, 0.1, "relu", False, (0, 1), np.sin)


def args_tanh(w, x):
    return (w, x, 0.01, "tanh", True, 0, cube)


def args_relu(w, x):
    return (w, x, 0.1, "relu", False, (0, 1), np.sin)


def kw_loss(w, x, scale=1.0, shift=0.0):
    return np.sum(np.tanh(x @ w * scale + shift))


@agc.export
def keyword_args_grad(w: agc.f32[3, 4], x: agc.f32["B", 3]):
    return agc.grad(kw_loss, argnums=(0, 1))(w, x, scale=2.0, shift=-0.5)


def kw_loss_bound(w, x):
    return kw_loss(w, x, scale=2.0, shift=-0.5)


AGC_GRAD_CHECKS = {
    "static_args_grad": ("loss", 0, {"args": "args_tanh"}),
    "static_args_grad_relu": ("loss", 0, {"args": "args_relu"}),
    "keyword_args_grad": ("kw_loss_bound", (0, 1)),
}
