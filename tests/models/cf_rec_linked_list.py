"""Recursion along a linked list given as a `next` index array (-1 ends it); the length is run-time data."""
import agc
import agc.numpy as np


def list_sum(nxt, val, i):
    if i < 0:
        return np.zeros((), dtype=val.dtype)
    return val[i] + list_sum(nxt, val, nxt[i])


def list_len(nxt, i):
    if i < 0:
        return 0
    return 1 + list_len(nxt, nxt[i])


@agc.export
def sum_from(nxt: agc.i64["N"], val: agc.f64["N"], head: agc.i64[()]):
    return list_sum(nxt, val, head), np.asarray(list_len(nxt, head))


def agc_test_inputs(export_name, rng, dims):
    n = dims["N"] * 4
    order = rng.permutation(n)
    nxt = -np.ones(n, dtype=np.int64)
    nxt[order[:-1]] = order[1:]
    start = 0 if dims["N"] % 2 else n // 2        # the whole list, then a suffix
    return [nxt, rng.standard_normal(n), np.int64(order[start])]
