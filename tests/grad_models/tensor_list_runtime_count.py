"""A tensor list appended to in a staged `for i in range(n)` with n a run-time scalar, then stacked (float32)."""
import agc
import agc.numpy as np


def running_products(x, n):
    acc = x
    items = []
    for i in range(n):
        acc = acc * np.cos(x + i)
        items.append(acc)
    s = np.stack(items, axis=1)                   # [3,n]
    return np.sum(s * s)


@agc.export
def runtime_count_stack_grad(x: agc.f32[3], n: agc.i64[()]):
    return agc.grad(running_products)(x, n)


AGC_GRAD_CHECKS = {"runtime_count_stack_grad": ("running_products", 0)}


def agc_grad_inputs(name, rng):
    x = (0.6 * rng.standard_normal(3)).astype(np.float32)
    return [[x, np.int64(n)] for n in (1, 5)]
