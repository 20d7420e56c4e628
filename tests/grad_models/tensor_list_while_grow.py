"""Gradient through a list appended in a staged `while` (unknown trip count, the buffer grows) and stacked."""
import agc
import agc.numpy as np


def decaying_trace(x, limit):
    items = []
    scale = np.sum(x * x) + 1.0
    while scale > limit:
        scale = scale * 0.7
        items.append(np.sin(x) * scale)
        items.append(x * x)
    s = np.stack(items)
    return np.sum(s * np.cos(s))


@agc.export
def while_trace_grad(x: agc.f32[4], limit: agc.f32[()]):
    return agc.grad(decaying_trace)(x, limit)


AGC_GRAD_CHECKS = {"while_trace_grad": ("decaying_trace", 0)}


def agc_grad_inputs(name, rng):
    x = (0.8 * rng.standard_normal(4)).astype(np.float32)
    return [[x, np.float32(limit)] for limit in (0.5, 0.02)]
