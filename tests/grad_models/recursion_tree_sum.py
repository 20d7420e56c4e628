"""Recursion over index arrays: a recursive neural net (tanh of W [h_l; h_r]) summed over a tree; gradients w.r.t. weights and leaf vectors (float32)."""
import agc
import agc.numpy as np


def encode(W, b, leaves, left, right, node):
    if left[node] < 0:
        return np.tanh(leaves[node])
    hl = encode(W, b, leaves, left, right, left[node])
    hr = encode(W, b, leaves, left, right, right[node])
    return np.tanh(np.concatenate([hl, hr]) @ W + b)


def loss(W, b, leaves, left, right):
    h = encode(W, b, leaves, left, right, 0)
    return np.sum(h * np.arange(1, 5)) + np.sum(h ** 2)


@agc.export
def tree_net_grad(W: agc.f32[8, 4], b: agc.f32[4], leaves: agc.f32["N", 4], left: agc.i64["N"], right: agc.i64["N"]):
    return agc.grad(loss, argnums=(0, 1, 2))(W, b, leaves, left, right)


def tree_sum(x, left, right, node, weight):
    # a weighted sum: a leaf at depth d counts with weight decay**d (the weight is staged, so one
    # specialisation serves every depth)
    if left[node] < 0:
        return x[node] * weight
    a = tree_sum(x, left, right, left[node], weight * weight)
    b = tree_sum(x, left, right, right[node], weight * 0.5)
    return a + np.sin(b)


def sum_loss(x, decay, left, right):
    return tree_sum(x, left, right, 0, decay)


@agc.export
def tree_sum_grad(x: agc.f32["N"], decay: agc.f32[()], left: agc.i64["N"], right: agc.i64["N"]):
    return agc.grad(sum_loss, argnums=(0, 1))(x, decay, left, right)


AGC_GRAD_CHECKS = {
    "tree_net_grad": ("loss", (0, 1, 2)),
    "tree_sum_grad": ("sum_loss", (0, 1)),
}


def agc_grad_inputs(name, rng):
    from harness import random_binary_tree  # the test harness (tests/ is on the path)

    sets = []
    for leaves in (1, 3, 6):
        left, right = random_binary_tree(rng, leaves)
        n = len(left)
        if name == "tree_net_grad":
            sets.append([(0.5 * rng.standard_normal((8, 4))).astype(np.float32),
                         (0.1 * rng.standard_normal(4)).astype(np.float32),
                         rng.standard_normal((n, 4)).astype(np.float32), left, right])
        else:
            sets.append([rng.standard_normal(n).astype(np.float32), np.float32(0.9), left, right])
    return sets
