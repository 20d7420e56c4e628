"""`while True` with a staged `break`, and a staged `for` with `break` and `continue`, inside the differentiated function (float32)."""
import agc
import agc.numpy as np


def grow(x, r):
    y = x
    while True:
        y = y * r + 0.1
        if np.sum(y) > 10.0:
            break
    return np.sum(y ** 2) * 0.01


@agc.export
def while_true_break_grad(x: agc.f32[3], r: agc.f32[()]):
    return agc.grad(grow, argnums=(0, 1))(x, r)


def prefix(xs, w, limit):
    total = np.zeros_like(w)
    for t in range(xs.shape[0]):
        if np.sum(xs[t]) < -1.0:
            continue
        total = total + np.tanh(xs[t] * w)
        if np.sum(total) > limit:
            break
    return np.sum(total * total)


@agc.export
def for_break_continue_grad(xs: agc.f32["T", 3], w: agc.f32[3], limit: agc.f32[()]):
    return agc.grad(prefix, argnums=(0, 1))(xs, w, limit)


AGC_GRAD_CHECKS = {
    "while_true_break_grad": ("grow", (0, 1)),
    "for_break_continue_grad": ("prefix", (0, 1)),
}


def agc_grad_inputs(name, rng):
    if name == "while_true_break_grad":
        return [[np.array([1.0, 2.0, 0.5], np.float32), np.float32(1.3)],
                [np.array([4.0, 3.0, 5.0], np.float32), np.float32(0.9)]]   # breaks after the first step
    xs = rng.standard_normal((8, 3)).astype(np.float32)
    w = np.array([1.0, 0.7, 1.3], np.float32)
    return [[xs, w, np.float32(lim)] for lim in (0.37, 1.51, 100.0)]
