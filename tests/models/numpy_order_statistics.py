"""Order statistics and NaN-ignoring reductions: median, quantile and percentile (linear method,
numpy's lerp) over an axis or all elements, NaN in a slice giving NaN; nansum, nanprod, nanmax,
nanmin, nanmean, nanvar, nanstd, nanargmax and nanargmin, with all-NaN slices; vector and matrix
norms of every supported order. Against numpy at run-time sizes (odd and even lengths)."""
import agc
import numpy as np


@agc.export
def order(x: agc.f32["N", "M"], k: agc.i64["N", "M"]):
    y = np.where(x > 1.5, np.nan, x)
    return (np.median(x), np.median(x, axis=0), np.median(x, axis=1, keepdims=True), np.median(k, axis=0),
            np.median(y, axis=1), np.quantile(x, 0.3), np.quantile(x, [0.1, 0.5, 0.95], axis=1),
            np.percentile(x, 75, axis=0, keepdims=True), np.percentile(k, 40), np.quantile(y, 0.5, axis=0),
            np.quantile(x, 1.0, axis=1), np.quantile(x, 0.0))


@agc.export
def ignoring_nan(x: agc.f32["N", "M"], k: agc.i32["N", "M"]):
    y = np.where(x > 0.8, np.nan, x)
    z = np.where(np.arange(x.shape[1]) == 0, np.nan, y)  # column 0 all NaN
    return (np.nansum(y), np.nansum(y, axis=0), np.nanprod(y, axis=1), np.nanmax(z, axis=0), np.nanmin(z, axis=1),
            np.nanmean(y, axis=1, keepdims=True), np.nanmean(z, axis=0), np.nanvar(y, axis=0), np.nanstd(y, ddof=1),
            np.nanargmax(y, axis=1), np.nanargmin(y), np.nansum(k, axis=0), np.nanmax(k))


@agc.export
def norms(x: agc.f64["N", "M"], v: agc.f32["M"]):
    return (np.linalg.norm(v, 1), np.linalg.norm(v, np.inf), np.linalg.norm(v, -np.inf), np.linalg.norm(v, 0),
            np.linalg.norm(v, 3), np.linalg.norm(x, ord=1, axis=1), np.linalg.norm(x, 1), np.linalg.norm(x, -1),
            np.linalg.norm(x, np.inf), np.linalg.norm(x, -np.inf), np.linalg.norm(x, "fro"),
            np.linalg.norm(x, 0.5, axis=0, keepdims=True), np.linalg.norm(x, 1, axis=(1, 0), keepdims=True))
