"""Recursive binary search on a sorted array with run-time bounds `lo`/`hi` (early returns in staged `if`s)."""
import agc
import agc.numpy as np


def bsearch(x, target, lo, hi):
    if lo >= hi:
        return -1 - lo
    mid = (lo + hi) // 2
    if x[mid] == target:
        return mid
    if x[mid] < target:
        return bsearch(x, target, mid + 1, hi)
    return bsearch(x, target, lo, mid)


@agc.export
def search(x: agc.i64["N"], target: agc.i64[()]):
    return np.asarray(bsearch(x, target, 0, x.shape[0]))


def agc_test_inputs(export_name, rng, dims):
    n = dims["N"] * 5
    x = np.sort(rng.choice(np.arange(0, 200, 2), size=n, replace=False)).astype(np.int64)
    target = x[n // 3] if dims["N"] % 2 else x[n // 3] + 1      # found, then missing
    return [x, np.int64(target)]
