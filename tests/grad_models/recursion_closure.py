"""Gradients through a staged recursive function defined inside the loss, closing over the
weights and the tree arrays instead of taking them as arguments (float64)."""
import agc
import agc.numpy as np


def loss(W, b, leaves, left, right):
    def encode(node):
        if left[node] < 0:
            return np.tanh(leaves[node])
        h = np.concatenate([encode(left[node]), encode(right[node])])
        return np.tanh(h @ W + b)
    h = encode(0)
    return np.sum(h * np.arange(1, 4)) + np.sum(h ** 2)


@agc.export
def closure_tree_grad(W: agc.f64[6, 3], b: agc.f64[3], leaves: agc.f64["N", 3], left: agc.i64["N"], right: agc.i64["N"]):
    return agc.grad(loss, argnums=(0, 1, 2))(W, b, leaves, left, right)


AGC_GRAD_CHECKS = {"closure_tree_grad": ("loss", (0, 1, 2))}


def agc_grad_inputs(name, rng):
    from harness import random_binary_tree  # the test harness (tests/ is on the path)

    sets = []
    for n_leaves in (1, 4):
        left, right = random_binary_tree(rng, n_leaves)
        sets.append([0.5 * rng.standard_normal((6, 3)), 0.1 * rng.standard_normal(3),
                     rng.standard_normal((len(left), 3)), left, right])
    return sets
