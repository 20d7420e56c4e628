"""Divide-and-conquer recursion over index bounds `lo`/`hi` (same tensor at every level): a pairwise sum and max."""
import agc
import agc.numpy as np


def pairwise_sum(x, lo, hi):
    if hi - lo == 1:
        return x[lo]
    mid = (lo + hi) // 2
    return pairwise_sum(x, lo, mid) + pairwise_sum(x, mid, hi)


def range_max(x, lo, hi):
    if hi - lo <= 1:
        return x[lo]
    mid = (lo + hi) // 2
    return np.maximum(range_max(x, lo, mid), range_max(x, mid, hi))


@agc.export
def sum_and_max(x: agc.f64["N"]):
    return pairwise_sum(x, 0, x.shape[0]), range_max(x, 0, x.shape[0])


AGC_TEST_DIMS = {"N": 13}
