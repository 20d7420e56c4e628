"""Parameters as tuples and nested tuples/lists: gradients come back in the same structure (float32)."""
import agc
import agc.numpy as np


def mlp(params, x):
    (w1, b1), (w2, b2) = params
    h = np.tanh(x @ w1 + b1)
    return np.sum((h @ w2 + b2) ** 2)


@agc.export
def nested_tuple_grad(w1: agc.f32[3, 4], b1: agc.f32[4], w2: agc.f32[4, 2], b2: agc.f32[2], x: agc.f32["B", 3]):
    (g1, gb1), (g2, gb2) = agc.grad(mlp)(((w1, b1), (w2, b2)), x)
    return g1, gb1, g2, gb2


def mlp_args(w1, b1, w2, b2, x):
    return (((w1, b1), (w2, b2)), x)


def list_loss(ws, scale):
    total = 0.0
    for w in ws:
        total = total + np.sum(np.sin(w) * scale)
    return total


@agc.export
def list_grad(a: agc.f32[2], b: agc.f32[3, 2], c: agc.f32[()], scale: agc.f32[()]):
    ga, gb, gc = agc.grad(list_loss)([a, b, c], scale)
    return ga, gb, gc


@agc.export
def list_and_scalar_grad(a: agc.f32[2], b: agc.f32[3, 2], c: agc.f32[()], scale: agc.f32[()]):
    (ga, gb, gc), gs = agc.grad(list_loss, argnums=(0, 1))([a, b, c], scale)
    return ga, gb, gc, gs


def list_args(a, b, c, scale):
    return ([a, b, c], scale)


AGC_GRAD_CHECKS = {
    "nested_tuple_grad": ("mlp", 0, {"args": "mlp_args"}),
    "list_grad": ("list_loss", 0, {"args": "list_args"}),
    "list_and_scalar_grad": ("list_loss", (0, 1), {"args": "list_args"}),
}
