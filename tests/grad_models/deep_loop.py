"""Staged loops of run-time length (100,000 iterations in the dedicated test) inside the differentiated function (float64)."""
import agc
import agc.numpy as np


def product_loss(a, x, n):
    # sum(x * (1 + a)**n), by n multiplications
    y = x
    for _ in range(n):
        y = y * (1.0 + a)
    return np.sum(y)


@agc.export
def product_loop_grad(a: agc.f64[()], x: agc.f64[5], n: agc.i64[()]):
    value, (ga, gx) = agc.value_and_grad(product_loss, argnums=(0, 1))(a, x, n)
    return value, ga, gx


def running_sum(w, c, n):
    s = w * 0.0
    for t in range(n):
        s = s * c + np.sin(t * w) * 1e-3
    return s


@agc.export
def running_sum_grad(w: agc.f64[()], c: agc.f64[()], n: agc.i64[()]):
    return agc.grad(running_sum, argnums=(0, 1))(w, c, n)


AGC_GRAD_CHECKS = {
    "product_loop_grad": ("product_loss", (0, 1), {"value": True}),
    "running_sum_grad": ("running_sum", (0, 1)),
}


def agc_grad_inputs(name, rng):
    if name == "product_loop_grad":
        return [[np.float64(1e-3), rng.standard_normal(5), np.int64(n)] for n in (0, 1, 1000)]
    return [[np.float64(0.37), np.float64(0.999), np.int64(n)] for n in (1, 50, 1000)]
