"""Recursion inside a staged `while`: the size of an n-ary tree in first-child / next-sibling form."""
import agc
import agc.numpy as np


def subtree_size(first_child, next_sibling, node):
    size = 1
    child = first_child[node]
    while child >= 0:
        size = size + subtree_size(first_child, next_sibling, child)
        child = next_sibling[child]
    return size


def subtree_weight(first_child, next_sibling, weight, node):
    total = weight[node]
    child = first_child[node]
    while child >= 0:
        total = total + 0.5 * subtree_weight(first_child, next_sibling, weight, child)
        child = next_sibling[child]
    return total


@agc.export
def tree_stats(first_child: agc.i64["N"], next_sibling: agc.i64["N"], weight: agc.f64["N"]):
    return np.asarray(subtree_size(first_child, next_sibling, 0)), subtree_weight(first_child, next_sibling, weight, 0)


def agc_test_inputs(export_name, rng, dims):
    n = dims["N"] * 3
    parent = [-1] + [int(rng.integers(0, k)) for k in range(1, n)]   # a random tree, node 0 the root
    first_child = -np.ones(n, dtype=np.int64)
    next_sibling = -np.ones(n, dtype=np.int64)
    for k in range(n - 1, 0, -1):                                      # prepend, so children come in order
        p = parent[k]
        next_sibling[k] = first_child[p]
        first_child[p] = k
    return [first_child, next_sibling, rng.standard_normal(n)]
