"""np.convolve, np.correlate (modes full, same, valid; either input the shorter, one of a run-time
length; ints, mixed dtypes, a scalar) and np.interp (float32 and float64 points, NaN, points
outside and on the knots, left/right, one sample point, run-time knots)."""
import agc
import agc.numpy as np


@agc.export
def conv_static(a: agc.f32[7], v: agc.f32[3]):
    return (np.convolve(a, v), np.convolve(a, v, "same"), np.convolve(v, a, "valid"),
            np.correlate(a, v), np.correlate(v, a, "full"), np.correlate(a, v, mode="same"),
            np.correlate(v, a, "same"))


@agc.export
def conv_even_lengths(a: agc.f64[6], v: agc.f64[4]):
    return (np.convolve(a, v, "same"), np.convolve(v, a, "same"), np.correlate(a, v, "same"),
            np.correlate(v, a, "same"), np.correlate(v, a, "valid"), np.convolve(a, a, "same"))


@agc.export
def conv_runtime(a: agc.f64["N"], v: agc.f64[4]):
    return (np.convolve(a, v), np.convolve(a, v, "same"), np.convolve(v, a, "valid"),
            np.correlate(a, v, "same"), np.correlate(v, a, "same"), np.correlate(v, a, "valid"))


@agc.export
def conv_ints(a: agc.i64[5], v: agc.i32[2], w: agc.f32[3]):
    return np.convolve(a, v), np.convolve(3, v), np.correlate(v, w, "full"), np.convolve(a, w, 1)


@agc.export
def interp(x: agc.f32["M"], xp: agc.f64[6], fp: agc.f32[6]):
    xs = np.sort(xp)
    grid = np.linspace(-0.25, 1.25, 13)
    return (np.interp(x, xs, fp), np.interp(x, xs, fp, left=-1.0, right=7.5),
            np.interp(2.5, [1.0, 2.0, 3.0], [3.0, 5.0, 4.0]), np.interp(x, xs[:1], fp[:1]),
            np.interp(grid, xs, fp), np.interp(xs, xs, fp))


@agc.export
def interp_runtime_knots(x: agc.f64["M"], xp: agc.f64["K"], fp: agc.f64["K"]):
    return np.interp(x, np.sort(xp), fp), np.interp(np.sort(xp)[1:], np.sort(xp), fp)
