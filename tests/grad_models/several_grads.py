"""Several agc.grad calls in one export: of different functions, of the same function at different points, a gradient fed into a second loss (float32)."""
import agc
import agc.numpy as np


def f(w, x):
    return np.sum(np.tanh(x @ w) ** 2)


def g(w):
    return np.sum(np.sin(w) * w)


@agc.export
def two_grads(w: agc.f32[3, 3], x: agc.f32["B", 3]):
    a = agc.grad(f)(w, x)
    b = agc.grad(g)(w)
    return a + b


def f_plus_g(w, x):
    return f(w, x) + g(w)


def lookahead(w, x):
    # the loss at a point moved along the (treated-as-data) gradient of g
    return f(w - 0.1 * np.cos(w), x)


@agc.export
def chained_grads(w: agc.f32[3, 3], x: agc.f32["B", 3]):
    gw = agc.grad(g)(w)
    w2 = w - 0.1 * gw
    return agc.grad(f)(w2, x), agc.grad(f)(w, x)


def chained_view(inputs, results):
    return [results[1]]


AGC_GRAD_CHECKS = {
    "two_grads": ("f_plus_g", 0),
    "chained_grads": ("f", 0, {"view": "chained_view"}),
}
