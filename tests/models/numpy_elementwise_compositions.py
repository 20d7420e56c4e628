"""numpy's elementwise functions that agc stages as compositions of others (positive, trunc,
fix, cbrt, hypot, fmax, fmin, heaviside, float_power, deg2rad/rad2deg, sinc, tan, the
inverse hyperbolics) and log1p/expm1 accurate for tiny arguments, against numpy in float32
and float64, at run-time sizes, with NaN, infinities and signed zeros among the inputs."""
import agc
import numpy as np


def specials(x):
    """x with NaN, ±inf, ±0 and a huge value written into its first elements."""
    flat = x.reshape(-1)
    n = flat.shape[0]
    k = np.arange(n)
    flat = np.where(k == 0, np.nan, flat)
    flat = np.where(k == 1, np.inf, flat)
    flat = np.where(k == 2, -np.inf, flat)
    flat = np.where(k == 3, -0.0, flat)
    flat = np.where(k == 4, 0.0, flat)
    flat = np.where(k == 5, 3e30, flat)
    return flat.reshape(x.shape)


@agc.export
def rounding_and_roots(x: agc.f32["N", "M"]):
    y = specials(x * 3.0)
    return np.positive(y), np.trunc(y), np.fix(y), np.cbrt(y), np.cbrt(np.float32(27.0) + 0 * y)


@agc.export
def pairs(x: agc.f32["N", "M"], y: agc.f32["N", "M"]):
    a = specials(x * 2.0)
    b = np.where(y > 1.0, np.nan, y)
    return (np.hypot(a, b), np.hypot(a, np.float32(1e30)), np.fmax(a, b), np.fmin(a, b),
            np.heaviside(a, b), np.heaviside(a, 0.5), np.float_power(np.abs(y), 2.5))


@agc.export
def angles_and_waves(x: agc.f64["N", "M"]):
    y = specials(x)
    return np.deg2rad(y), np.rad2deg(y), np.degrees(x), np.radians(x), np.sinc(y), np.tan(x)


@agc.export
def inverse_hyperbolics(x: agc.f32["N", "M"], w: agc.f64["N"]):
    y = specials(x * 4.0)
    t = np.tanh(x)
    return (np.arcsinh(y), np.arccosh(np.abs(y) + 1.0), np.arctanh(t), np.arctanh(np.float32(1.0) + 0 * t),
            np.arcsinh(w * 1e-12), np.arcsinh(w * 1e200), np.arccosh(np.abs(w) * 1e200 + 1.0))


@agc.export
def tiny_log1p_expm1(x: agc.f32["N"], w: agc.f64["N"]):
    y = specials(x)
    return (np.log1p(x * 1e-7), np.expm1(x * 1e-7), np.log1p(y), np.expm1(y),
            np.log1p(w * 1e-12), np.expm1(w * 1e-12), np.log1p(np.float32(-1.0) + 0 * x), np.expm1(-w * 1e3))
