"""Second-order gradients through staged control flow: the gradient norm of a recursive tree net
whose leaf table is passed down the recursion but not differentiated, and of a staged loop whose
input sequence is not differentiated (float64)."""
import agc
import agc.numpy as np


def encode(W, leaves, left, right, node):
    if left[node] < 0:
        return np.tanh(leaves[node] @ W[:3])
    h = np.concatenate([encode(W, leaves, left, right, left[node]), encode(W, leaves, left, right, right[node])])
    return np.tanh(h @ W)


def tree_loss(W, leaves, left, right):
    return np.sum(encode(W, leaves, left, right, 0) ** 2)


def tree_grad_norm(W, leaves, left, right):
    g = agc.grad(tree_loss)(W, leaves, left, right)
    return np.sum(g * g)


@agc.export
def tree_hessian_grad(W: agc.f64[6, 3], leaves: agc.f64["N", 3], left: agc.i64["N"], right: agc.i64["N"]):
    return agc.grad(tree_grad_norm)(W, leaves, left, right)


def rnn_loss(w, xs):
    h = xs[0] * 0.0
    for t in range(xs.shape[0]):
        h = np.tanh(xs[t] + h @ w)
    return np.sum(h ** 2)


def rnn_grad_norm(w, xs):
    g = agc.grad(rnn_loss)(w, xs)
    return np.sum(g * g)


@agc.export
def rnn_hessian_grad(w: agc.f64[3, 3], xs: agc.f64["T", 3]):
    return agc.grad(rnn_grad_norm)(w, xs)


AGC_GRAD_CHECKS = {
    "tree_hessian_grad": ("tree_grad_norm", 0),
    "rnn_hessian_grad": ("rnn_grad_norm", 0),
}


def agc_grad_inputs(name, rng):
    from harness import random_binary_tree  # the test harness (tests/ is on the path)

    if name == "rnn_hessian_grad":
        return [[0.5 * rng.standard_normal((3, 3)), rng.standard_normal((t, 3))] for t in (1, 4)]
    sets = []
    for n_leaves in (1, 5):
        left, right = random_binary_tree(rng, n_leaves)
        sets.append([0.5 * rng.standard_normal((6, 3)), rng.standard_normal((len(left), 3)), left, right])
    return sets
