"""Elementwise math beyond the core ufuncs: inverse trig, hyperbolic, exp2/log2/log10, reciprocal,
logaddexp, isnan/isinf/isfinite, nan_to_num and round (half to even, with decimals), on float32,
float64 and integer inputs (which compute in float64), with run-time and static sizes."""
import agc
import agc.numpy as np


@agc.export
def trig_f32(x: agc.f32["N", 3], y: agc.f32[3]):
    return (np.arcsin(x), np.arccos(x), np.arctan(x * 4), np.arctan2(x, y), np.arctan2(y, 2.0),
            np.sinh(x), np.cosh(x), np.exp2(x * 3))


@agc.export
def logs_f64(x: agc.f64["N"], y: agc.f64["N"]):
    a = np.abs(x) + 0.5
    return np.log2(a), np.log10(a), np.reciprocal(a), np.logaddexp(x, y), np.logaddexp(x * 30, 2.0)


@agc.export
def int_inputs(i: agc.i32["N", 2], j: agc.i64[4]):
    # Integers compute in float64; reciprocal and round keep the integer dtype.
    return (np.arctan(i), np.arctan2(i, j[:2]), np.sinh(j), np.exp2(j), np.log2(np.abs(i) + 1),
            np.reciprocal(j), np.reciprocal(i), np.round(i), np.round(j * 25, -1), np.around(i * 15, -2))


@agc.export
def classify(x: agc.f32["N"], z: agc.f32["N"], k: agc.i64["N"]):
    q = x / z  # z holds zeros: infinities and NaN
    return (np.isnan(q), np.isinf(q), np.isfinite(q), np.nan_to_num(q), np.nan_to_num(q, nan=-1.0, posinf=9.0, neginf=-9.0),
            np.isnan(k), np.isfinite(k), np.nan_to_num(k))


@agc.export
def rounding(x: agc.f32[8], y: agc.f64["N"]):
    return (np.round(x), np.round(x, 1), np.around(x, decimals=2), x.round(), x.round(-1), np.round(y * 100, -1),
            y.round(3), np.round(2.5), np.round(x, 0))


def agc_test_inputs(name, rng, dims):
    n = dims.get("N", 3)
    if name == "trig_f32":
        return [rng.uniform(-1, 1, (n, 3)).astype(np.float32), rng.uniform(-2, 2, 3).astype(np.float32)]
    if name == "classify":
        z = rng.integers(0, 3, n).astype(np.float32)
        return [rng.standard_normal(n).astype(np.float32), z, rng.integers(-5, 5, n)]
    if name == "rounding":
        halves = np.array([0.5, 1.5, 2.5, -0.5, -2.5, 0.125, 2.675, 14.5], dtype=np.float32)
        return [halves, np.concatenate([[0.0005, 0.0015, 0.125], rng.standard_normal(n)])[:n]]
    return None
