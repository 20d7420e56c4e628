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


def _tree(rng, n_leaves):
    left, right = [-1], [-1]
    frontier = [0]
    while (len(left) + 1) // 2 < n_leaves:
        node = frontier.pop(rng.integers(len(frontier)))
        left[node], right[node] = len(left), len(left) + 1
        left += [-1, -1]
        right += [-1, -1]
        frontier += [len(left) - 2, len(left) - 1]
    return np.array(left, np.int64), np.array(right, np.int64)


def agc_grad_inputs(name, rng):
    sets = []
    for n_leaves in (1, 4):
        left, right = _tree(rng, n_leaves)
        sets.append([0.5 * rng.standard_normal((6, 3)), 0.1 * rng.standard_normal(3),
                     rng.standard_normal((len(left), 3)), left, right])
    return sets
