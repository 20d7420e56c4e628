"""np.sort / np.argsort (axis, axis=None, NaN last, ties in order, bool and int inputs, the
argsort method) and np.cumprod / x.cumprod() on static and run-time sized axes."""
import agc
import agc.numpy as np


@agc.export
def sorting(x: agc.f32["N", 3], k: agc.i64[4]):
    y = x.copy()
    y[0, 0] = np.nan
    return (np.sort(x, axis=0), np.sort(y), np.argsort(y, axis=0), np.argsort(x.ravel()),
            x.argsort(axis=1), np.sort(k), np.sort(x > 0, axis=0), np.sort(x, axis=None))


@agc.export
def top2(scores: agc.f32["B", 6]):
    order = np.argsort(-scores, axis=1)
    best = np.sort(scores, axis=1)[:, -2:]
    return order[:, :2], best


@agc.export
def products(x: agc.f32["N", 3]):
    return np.cumprod(x + 1, axis=0), (x + 1).cumprod(), np.cumprod(np.array([1, 2, 3], dtype=np.int32))


def agc_test_inputs(export_name, rng, dims):
    if export_name == "top2":
        return [rng.standard_normal((dims["B"], 6)).astype(np.float32)]
    x = rng.standard_normal((dims["N"], 3)).astype(np.float32)
    x[0, 1] = x[-1, 1]                       # a tie
    if export_name == "products":
        return [0.5 * x]
    return [x, rng.integers(-5, 5, size=4).astype(np.int64)]
