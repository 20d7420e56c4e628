"""Gradients through np.convolve, np.correlate and np.interp (float64): the convolutions are
sums of shifted products, interp a slope on the interval each point falls in. autograd has no
gradient of convolve and no interp or correlate: its oracle runs them written out (shifted
products of a zero-padded copy; the interval's ends picked with one-hot rows)."""
import agc
import agc.numpy as np


def filters(a, v):
    full = np.convolve(a, v)
    return np.sum(full ** 2) + np.sum(np.convolve(a, v, "valid") * 0.5) + np.sum(np.correlate(a, v) ** 3)


@agc.export
def filters_grad(a: agc.f64["N"], v: agc.f64[3]):
    return agc.grad(filters, argnums=(0, 1))(a, v)


def convolve_full(a, v):
    n, k = a.shape[0], v.shape[0]
    padded = np.concatenate([np.zeros(k - 1), a, np.zeros(k - 1)])
    return sum(v[j] * padded[k - 1 - j:k - 1 - j + n + k - 1] for j in range(k))


def filters_written_out(a, v):
    full = convolve_full(a, v)
    lo, hi = min(a.shape[0], v.shape[0]) - 1, max(a.shape[0], v.shape[0])
    valid = full[lo:hi]
    correlated = convolve_full(a, v[::-1])[lo:hi]
    return np.sum(full ** 2) + np.sum(valid * 0.5) + np.sum(correlated ** 3)


def filters_eager(a, v):
    return agc.grad(filters_written_out, argnums=(0, 1))(a, v)


def curve(x, fp):
    xp = np.array([-1.0, -0.25, 0.5, 1.5, 2.0])
    return np.sum(np.interp(x, xp, fp) ** 2) + np.sum(np.interp(x * 0.5, xp, fp * fp))


@agc.export
def curve_grad(x: agc.f64["N"], fp: agc.f64[5]):
    return agc.grad(curve, argnums=(0, 1))(x, fp)


def interp_written_out(x, xp, fp):
    j = np.clip(np.searchsorted(xp, x, side="right") - 1, 0, xp.shape[0] - 2)
    rows = np.arange(xp.shape[0])
    at = lambda t, k: np.sum((k[:, None] == rows) * t, axis=1)  # noqa: E731
    x0, x1, f0, f1 = at(xp, j), at(xp, j + 1), at(fp, j), at(fp, j + 1)
    # Beyond the ends the clipped fraction gives fp[0] or fp[-1], as np.interp does.
    return f0 + (f1 - f0) * np.clip((x - x0) / (x1 - x0), 0.0, 1.0)


def curve_written_out(x, fp):
    xp = np.array([-1.0, -0.25, 0.5, 1.5, 2.0])
    return (np.sum(interp_written_out(x, xp, fp) ** 2)
            + np.sum(interp_written_out(x * 0.5, xp, fp * fp)))


def curve_eager(x, fp):
    return agc.grad(curve_written_out, argnums=(0, 1))(x, fp)


AGC_GRAD_CHECKS = {
    "filters_grad": ("filters", (0, 1), {"eager": "filters_eager"}),
    "curve_grad": ("curve", (0, 1), {"eager": "curve_eager"}),
}
