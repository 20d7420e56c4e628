"""IEEE specials as numpy treats them: maximum/minimum/max/min/argmax propagate NaN, exp overflows to inf,
log(0) is -inf, x/0 is +-inf or nan, comparisons with NaN are False."""
import agc
import agc.numpy as np

AGC_EXPECTS_FP_EXCEPTIONS = True   # the eager run warns about invalid values; that is the point


@agc.export
def nan_propagation(x: agc.f32[6], y: agc.f32[6]):
    return np.maximum(x, y), np.minimum(x, y), np.max(x), np.min(y), np.argmax(x), np.sum(x)


@agc.export
def overflow_and_zero(x: agc.f32[6], z: agc.f32[6]):
    return np.exp(x * 100), np.log(np.abs(z)), x / z, -x / z, z / z


@agc.export
def nan_comparisons(x: agc.f32[6], y: agc.f32[6]):
    return x < y, x == x, x != x, np.where(x > y, x, y)


@agc.export
def f64_specials(x: agc.f64[6]):
    return np.maximum(x, 0.0), np.tanh(x), np.sqrt(x), np.abs(x)


def agc_test_inputs(export_name, rng, dims):
    nan, inf = np.nan, np.inf
    x = np.array([1.0, nan, -2.0, inf, -inf, 0.5], np.float32)
    y = np.array([nan, 3.0, -1.0, 1.0, nan, 0.25], np.float32)
    z = np.array([0.0, -0.0, 2.0, 0.0, -1.0, 0.0], np.float32)
    if export_name == "overflow_and_zero":
        return [x, z]
    if export_name == "f64_specials":
        return [np.array([nan, inf, -inf, -0.0, 4.0, -4.0])]
    return [x, y]
