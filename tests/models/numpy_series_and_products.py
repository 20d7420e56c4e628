"""numpy's compositions of series and products: `polyval`, `trapezoid`, `ediff1d`,
`cumulative_sum`/`cumulative_prod`, `cross`, `linalg.multi_dot` and `linalg.matrix_power`,
on run-time and static sizes, against numpy."""
import agc
import agc.numpy as np


@agc.export
def polynomials(x: agc.f32["N"], c: agc.f64[4], m: agc.f32["N", 3]):
    return (np.polyval([1.5, -2.0, 0.25], x), np.polyval(c, x), np.polyval(c, m),
            np.polyval(np.array([2.0, 1.0], dtype=np.float32), x), np.polyval([3], x))


@agc.export
def integrals(y: agc.f32["N", 5], t: agc.f32[5], u: agc.f64["N"]):
    return (np.trapezoid(y), np.trapezoid(y, dx=0.5), np.trapezoid(y, t), np.trapezoid(y, axis=0),
            np.trapezoid(u, u), np.trapezoid(y, y, axis=1), np.trapezoid(u))


@agc.export
def differences(x: agc.f32["N", 3], k: agc.i32["N"]):
    return (np.ediff1d(x), np.ediff1d(k), np.ediff1d(x, to_begin=[-1.0, -2.0]),
            np.ediff1d(x[0], to_end=7.0, to_begin=x[1, :2]), np.ediff1d(k, to_end=[9]))


@agc.export
def running_totals(x: agc.f32["N", 3], v: agc.i32["N"]):
    return (np.cumulative_sum(v), np.cumulative_sum(x, axis=0), np.cumulative_sum(x, axis=1, include_initial=True),
            np.cumulative_prod(x * 0.5 + 1.0, axis=-1), np.cumulative_prod(v, include_initial=True),
            np.cumulative_sum(x, axis=0, dtype=np.float64, include_initial=True))


@agc.export
def cross_products(a: agc.f32["N", 3], b: agc.f32["N", 3], p: agc.f64[2], q: agc.f64["N", 2]):
    return (np.cross(a, b), np.cross(a[0], b), np.cross(p, q), np.cross(q, a), np.cross(a, q),
            np.cross(b, a).sum())


@agc.export
def matrix_products(a: agc.f32[4, 4], b: agc.f32[4, "N"], v: agc.f32[4], s: agc.f64["N", "N"]):
    return (np.linalg.multi_dot([a, a, b]), np.linalg.multi_dot([v, a, a]), np.linalg.multi_dot([a, b, b.T, v]),
            np.linalg.multi_dot([v, a, v]), np.linalg.matrix_power(a, 0), np.linalg.matrix_power(a, 1),
            np.linalg.matrix_power(a, 2), np.linalg.matrix_power(a, 3), np.linalg.matrix_power(a * 0.5, 7),
            np.linalg.matrix_power(s, 5), np.linalg.matrix_power(s, 0))
