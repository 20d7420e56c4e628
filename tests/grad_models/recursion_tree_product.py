"""Recursion over index arrays: the product of leaf values over a binary tree (left/right child arrays, -1 at leaves) (float64)."""
import agc
import agc.numpy as np


def tree_product(vals, left, right, node):
    if left[node] < 0:
        return vals[node]
    return tree_product(vals, left, right, left[node]) * tree_product(vals, left, right, right[node])


def loss(vals, left, right):
    return tree_product(vals, left, right, 0)


@agc.export
def tree_product_grad(vals: agc.f64["N"], left: agc.i64["N"], right: agc.i64["N"]):
    return agc.grad(loss)(vals, left, right)


AGC_GRAD_CHECKS = {"tree_product_grad": ("loss", 0)}


def agc_grad_inputs(name, rng):
    from harness import random_binary_tree  # the test harness (tests/ is on the path)

    sets = []
    for leaves in (1, 2, 5, 9):
        left, right = random_binary_tree(rng, leaves)
        vals = rng.uniform(0.5, 1.5, len(left)) * rng.choice([-1.0, 1.0], len(left))
        sets.append([vals, left, right])
    return sets
