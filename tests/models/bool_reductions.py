"""Reductions and argmax over bool arrays, bool matmul, and bool arithmetic promotions."""
import agc
import agc.numpy as np


@agc.export
def bool_reduce(m: agc.bool_[4, 5]):
    return np.sum(m, axis=1), np.max(m, axis=0), np.min(m), np.mean(m), np.argmax(m, axis=1)


@agc.export
def bool_matmul(a: agc.bool_[3, 4], b: agc.bool_[4, 2]):
    return a @ b, a.astype(np.int32) @ b.astype(np.int32)
