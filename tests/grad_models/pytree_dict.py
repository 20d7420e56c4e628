"""Parameters as a dict (and a dict holding a tuple): gradients come back as a dict with the same keys (float32)."""
import agc
import agc.numpy as np


def loss(params, x, y):
    h = np.tanh(x @ params["w"] + params["b"])
    pred = h @ params["head"][0] + params["head"][1]
    return np.mean((pred - y) ** 2) + 0.01 * np.sum(params["w"] ** 2)


@agc.export
def dict_grad(w: agc.f32[3, 5], b: agc.f32[5], hw: agc.f32[5, 2], hb: agc.f32[2], x: agc.f32["B", 3], y: agc.f32["B", 2]):
    g = agc.grad(loss)({"w": w, "b": b, "head": (hw, hb)}, x, y)
    return g["w"], g["b"], g["head"][0], g["head"][1]


def dict_args(w, b, hw, hb, x, y):
    return ({"w": w, "b": b, "head": (hw, hb)}, x, y)


@agc.export
def dict_and_input_grad(w: agc.f32[3, 5], b: agc.f32[5], hw: agc.f32[5, 2], hb: agc.f32[2], x: agc.f32["B", 3], y: agc.f32["B", 2]):
    g, gx = agc.grad(loss, argnums=(0, 1))({"w": w, "b": b, "head": (hw, hb)}, x, y)
    return g["w"], g["b"], g["head"][0], g["head"][1], gx


AGC_GRAD_CHECKS = {
    "dict_grad": ("loss", 0, {"args": "dict_args"}),
    "dict_and_input_grad": ("loss", (0, 1), {"args": "dict_args"}),
}
