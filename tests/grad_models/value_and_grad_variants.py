"""agc.value_and_grad: the value and the gradient, for one argument, a tuple of arguments and a dict (float32)."""
import agc
import agc.numpy as np


def loss(w, x, y):
    return np.mean((np.tanh(x @ w) - y) ** 2)


@agc.export
def vg_single(w: agc.f32[4, 2], x: agc.f32["B", 4], y: agc.f32["B", 2]):
    value, g = agc.value_and_grad(loss)(w, x, y)
    return value, g


@agc.export
def vg_tuple(w: agc.f32[4, 2], x: agc.f32["B", 4], y: agc.f32["B", 2]):
    value, (gw, gx) = agc.value_and_grad(loss, argnums=(0, 1))(w, x, y)
    return value, gw, gx


def dict_loss(p, x):
    return np.sum(np.sin(x * p["a"]) * p["b"])


@agc.export
def vg_dict(a: agc.f32[3], b: agc.f32[3], x: agc.f32[3]):
    value, g = agc.value_and_grad(dict_loss)({"a": a, "b": b}, x)
    return value, g["a"], g["b"]


def dict_args(a, b, x):
    return ({"a": a, "b": b}, x)


@agc.export
def vg_value_used(w: agc.f32[4, 2], x: agc.f32["B", 4], y: agc.f32["B", 2]):
    # the value feeds further computation in the export
    value, g = agc.value_and_grad(loss)(w, x, y)
    return value * 2.0, g / (1.0 + value)


def value_used_view(inputs, results):
    value2, scaled = results
    value = value2 / 2.0
    return [value, scaled * (1.0 + value)]


AGC_GRAD_CHECKS = {
    "vg_single": ("loss", 0, {"value": True}),
    "vg_tuple": ("loss", (0, 1), {"value": True}),
    "vg_dict": ("dict_loss", 0, {"value": True, "args": "dict_args"}),
    "vg_value_used": ("loss", 0, {"value": True, "view": "value_used_view"}),
}
