"""Loops inside the differentiated function: a staged `for` over a run-time count, a compile-time (unrolled) `for`, nested staged loops (float32)."""
import agc
import agc.numpy as np


def poly_iter(x, c, n):
    # y <- y * c + x, n times (n run-time)
    y = x
    for _ in range(n):
        y = y * c + x
    return np.sum(y)


@agc.export
def runtime_count_grad(x: agc.f32[4], c: agc.f32[()], n: agc.i64[()]):
    return agc.grad(poly_iter, argnums=(0, 1))(x, c, n)


def unrolled(w, x):
    h = x
    for k in range(3):                    # compile-time: unrolled
        h = np.tanh(h @ w + 0.1 * k)
    return np.sum(h)


@agc.export
def unrolled_grad(w: agc.f32[3, 3], x: agc.f32["B", 3]):
    return agc.grad(unrolled, argnums=(0, 1))(w, x)


def nested_loops(a, m, n):
    s = a * 0.0
    for i in range(m):
        t = a
        for j in range(n):
            t = np.sin(t) + 0.1 * j
        s = s + t * (i + 1)
    return np.sum(s * s)


@agc.export
def nested_loops_grad(a: agc.f32[3], m: agc.i64[()], n: agc.i64[()]):
    return agc.grad(nested_loops)(a, m, n)


AGC_GRAD_CHECKS = {
    "runtime_count_grad": ("poly_iter", (0, 1)),
    "unrolled_grad": ("unrolled", (0, 1)),
    "nested_loops_grad": ("nested_loops", 0),
}


def agc_grad_inputs(name, rng):
    if name == "runtime_count_grad":
        x = rng.standard_normal(4).astype(np.float32)
        return [[x, np.float32(0.8), np.int64(n)] for n in (0, 1, 7)]
    if name == "nested_loops_grad":
        a = rng.standard_normal(3).astype(np.float32)
        return [[a, np.int64(m), np.int64(n)] for m, n in ((0, 2), (2, 0), (3, 4))]
    return None
