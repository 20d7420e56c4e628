"""Staged recursive functions defined inside the export that close over its tensors (index
arrays, values, a run-time size read from a captured tensor's shape); a captured name rebound
between two calls gives each call its own specialisation."""
import agc
import agc.numpy as np


@agc.export
def tree_prod_closure(left: agc.i64["N"], right: agc.i64["N"], value: agc.f32["N"]):
    def prod(i):
        if left[i] < 0:
            return value[i]
        return prod(left[i]) * prod(right[i])
    first = prod(0)
    value = value * 2.0                         # the closure sees the new binding
    return first, prod(0)


@agc.export
def suffix_sum(x: agc.f32["N", 3], start: agc.i64[()]):
    def rsum(i):
        if i >= x.shape[0]:
            return x[0] * 0
        return x[i] + rsum(i + 1)
    return rsum(start)


def agc_test_inputs(export_name, rng, dims):
    if export_name == "suffix_sum":
        return [rng.standard_normal((dims["N"], 3)).astype(np.float32), np.int64(dims["N"] // 2)]
    # A random full binary tree over N = 2k+1 nodes (node 0 the root), leaves hold values.
    n = dims["N"] if dims["N"] % 2 == 1 else dims["N"] - 1
    left = -np.ones(dims["N"], dtype=np.int64)
    right = -np.ones(dims["N"], dtype=np.int64)
    leaves = [0]
    nxt = 1
    while nxt + 1 < n:
        node = leaves.pop(rng.integers(len(leaves)))
        left[node], right[node] = nxt, nxt + 1
        leaves += [nxt, nxt + 1]
        nxt += 2
    value = rng.uniform(0.5, 1.5, size=dims["N"]).astype(np.float32)
    return [left, right, value]
