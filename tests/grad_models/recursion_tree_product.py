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


def random_tree(rng, leaves):
    """Index arrays of a random binary tree with `leaves` leaves; node 0 is the root."""
    left, right = [-1], [-1]
    frontier = [0]
    while (len(left) + 1) // 2 < leaves:
        node = frontier.pop(rng.integers(len(frontier)))
        left[node], right[node] = len(left), len(left) + 1
        left += [-1, -1]
        right += [-1, -1]
        frontier += [len(left) - 2, len(left) - 1]
    return np.array(left, np.int64), np.array(right, np.int64)


def agc_grad_inputs(name, rng):
    sets = []
    for leaves in (1, 2, 5, 9):
        left, right = random_tree(rng, leaves)
        vals = rng.uniform(0.5, 1.5, len(left)) * rng.choice([-1.0, 1.0], len(left))
        sets.append([vals, left, right])
    return sets
