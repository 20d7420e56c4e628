"""Gradients through numpy's compositions of series and products: polyval, trapezoid,
cumulative_sum, cross, linalg.multi_dot and linalg.matrix_power (float64). autograd has no
gradient of polyval, trapezoid or matrix_power: its oracle runs the same functions written out."""
import agc
import agc.numpy as np


def series(x, c):
    y = np.polyval(c, x)
    return np.trapezoid(y * y, x) + np.sum(np.cumulative_sum(x * c[0], include_initial=True) ** 2)


@agc.export
def series_grad(x: agc.f64["N"], c: agc.f64[3]):
    return agc.grad(series, argnums=(0, 1))(x, c)


def products(a, b, u, w):
    m = np.linalg.matrix_power(a * 0.5, 3) + np.linalg.matrix_power(a * 0.3, 5)
    v = np.linalg.multi_dot([u, m, b, b.T])
    return np.sum(np.cross(u, v) ** 2) + np.sum(np.cross(w, u)) + np.sum(v * v)


@agc.export
def products_grad(a: agc.f64[3, 3], b: agc.f64[3, "N"], u: agc.f64[3], w: agc.f64["N", 3]):
    return agc.grad(products, argnums=(0, 1, 2, 3))(a, b, u, w)


def series_written_out(x, c):
    y = ((x * 0.0 + c[0]) * x + c[1]) * x + c[2]
    yy = y * y
    area = np.sum((x[1:] - x[:-1]) * (yy[1:] + yy[:-1]) / 2.0)
    totals = np.concatenate([np.zeros(1), np.cumsum(x * c[0])])
    return area + np.sum(totals ** 2)


def series_eager(x, c):
    return agc.grad(series_written_out, argnums=(0, 1))(x, c)


def products_written_out(a, b, u, w):
    h, t = a * 0.5, a * 0.3
    t2 = t @ t
    m = (h @ h) @ h + t @ (t2 @ t2)
    v = ((u @ m) @ b) @ b.T
    # autograd's cross does not reduce a broadcast operand's gradient: the sum over the rows of
    # w first (the cross product is linear in w).
    return np.sum(np.cross(u, v) ** 2) + np.sum(np.cross(np.sum(w, axis=0), u)) + np.sum(v * v)


def products_eager(a, b, u, w):
    return agc.grad(products_written_out, argnums=(0, 1, 2, 3))(a, b, u, w)


AGC_GRAD_CHECKS = {
    "series_grad": ("series", (0, 1), {"eager": "series_eager"}),
    "products_grad": ("products", (0, 1, 2, 3), {"eager": "products_eager"}),
}
