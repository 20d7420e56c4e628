"""numpy's array functions that agc stages as compositions of others: identity, atleast_1d/2d/3d,
ascontiguousarray, diff, average, ptp, inner, vdot, kron, cov, corrcoef, dstack and
column_stack, against numpy at run-time sizes."""
import agc
import numpy as np


@agc.export
def shapes(x: agc.f32["N", "M"], v: agc.f32["M"]):
    a, b = np.atleast_1d(v[0], v)
    return (np.identity(3) * x[0, 0], np.identity(2, dtype=np.int32), np.atleast_2d(v),
            np.atleast_3d(x), np.atleast_3d(v), np.atleast_1d(x[0, 0]), a, b,
            np.ascontiguousarray(x, dtype=np.float64))


@agc.export
def differences(x: agc.f32["N", "M"], k: agc.i64["M"]):
    return np.diff(x), np.diff(x, n=2, axis=0), np.diff(x > 0), np.diff(k), np.diff(x, n=0)


@agc.export
def averages(x: agc.f32["N", "M"], w: agc.f32["N"], i: agc.i32["N", "M"]):
    return (np.average(x), np.average(x, axis=0, weights=w * w + 0.5), np.average(x, weights=x * x + 1.0),
            np.average(i, axis=1), np.average(x, axis=1, keepdims=True), np.ptp(x, axis=1), np.ptp(i),
            np.average(x, axis=0, weights=w * w + 0.5, returned=True)[1])


@agc.export
def products(x: agc.f32["N", "M"], y: agc.f32["K", "M"], v: agc.f64["M"]):
    return np.inner(x, y), np.inner(v, v), np.inner(x, np.float32(2.0)), np.vdot(x, x), np.kron(x[0], v)


@agc.export
def kronecker(x: agc.f32[3, 4], y: agc.f32[2, 5], v: agc.f64[3]):
    return np.kron(x, y), np.kron(v, x), np.kron(x[0], v), np.kron(x, y[None])


@agc.export
def covariances(x: agc.f32["N", "M"], y: agc.f32["N", "M"]):
    return (np.cov(x), np.cov(x, rowvar=False), np.cov(x[0], y[0]), np.cov(x, bias=True),
            np.cov(x, ddof=0), np.corrcoef(x + y * 0.5), np.cov(x, dtype=np.float32))


@agc.export
def stacks(x: agc.f32["N", "M"], v: agc.f32["M"]):
    return (np.dstack([x, x * 2]), np.dstack([v, v]), np.dstack(x), np.column_stack([v, v * 2]),
            np.column_stack([x, x[:, 0]]), np.column_stack(x), np.column_stack([x[0, 0], x[1, 1]]))
