"""Gradient exports called many times by the leak test: a dense layer, a staged loop inside the
differentiated function, and a staged recursion over a tree (continuations with captured
buffers and output cells at every level) (float32)."""
import agc
import agc.numpy as np


def dense_loss(w, x):
    return np.sum(np.tanh(x @ w) ** 2)


@agc.export
def mlp_grad(w: agc.f32[64, 64], x: agc.f32["B", 64]):
    return agc.grad(dense_loss)(w, x)


def loop_loss(w, xs):
    h = xs[0] * 0.0
    outs = []
    for t in range(xs.shape[0]):
        h = np.tanh(xs[t] + h @ w * 0.1)
        outs.append(h)
    return np.sum(np.stack(outs) ** 2)


@agc.export
def loop_grad(w: agc.f32[64, 64], xs: agc.f32["T", 64]):
    return agc.grad(loop_loss)(w, xs)


def encode(w, leaves, left, right, node):
    if left[node] < 0:
        return np.tanh(leaves[node])
    h = encode(w, leaves, left, right, left[node]) + encode(w, leaves, left, right, right[node])
    return np.tanh(h @ w)


def tree_loss(w, leaves, left, right):
    return np.sum(encode(w, leaves, left, right, 0) ** 2)


@agc.export
def tree_grad(w: agc.f32[64, 64], leaves: agc.f32["N", 64], left: agc.i64["N"], right: agc.i64["N"]):
    return agc.grad(tree_loss, argnums=(0, 1))(w, leaves, left, right)


AGC_GRAD_CHECKS = {"mlp_grad": ("dense_loss", 0), "loop_grad": ("loop_loss", 0), "tree_grad": ("tree_loss", (0, 1))}


def agc_grad_inputs(name, rng):
    from harness import random_array, random_binary_tree  # the test harness (tests/ is on the path)

    if name != "tree_grad":
        return None
    left, right = random_binary_tree(rng, 6)
    return [[0.1 * rng.standard_normal((64, 64)).astype(np.float32),
             random_array(rng, "float32", (len(left), 64)), left, right]]
