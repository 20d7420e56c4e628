"""The seed's `tree_prod`: the product of the leaf values of a binary tree given as index arrays
(left/right child, -1 for a leaf); the recursion follows run-time indices."""
import agc
import agc.numpy as np


def tree_prod(left, right, value, node):
    if left[node] < 0:
        return value[node]
    return tree_prod(left, right, value, left[node]) * tree_prod(left, right, value, right[node])


@agc.export
def root_prod(left: agc.i64["N"], right: agc.i64["N"], value: agc.f64["N"]):
    return tree_prod(left, right, value, 0)


@agc.export
def subtree_prod(left: agc.i64["N"], right: agc.i64["N"], value: agc.f32["N"], node: agc.i64[()]):
    return tree_prod(left, right, value, node)


@agc.export
def forest_prod(left: agc.i64["N"], right: agc.i64["N"], value: agc.f64["N"], roots: agc.i64["R"]):
    out = []
    for r in range(roots.shape[0]):
        out.append(tree_prod(left, right, value, roots[r]))
    return np.stack(out)


def random_tree(rng, leaves):
    """A random full binary tree with `leaves` leaves, node 0 the root, in shuffled node order."""
    n = 2 * leaves - 1
    order = np.concatenate([[0], rng.permutation(np.arange(1, n))])
    left = -np.ones(n, dtype=np.int64)
    right = -np.ones(n, dtype=np.int64)
    frontier = [0]
    nxt = 1
    while nxt < n:
        k = rng.integers(len(frontier))
        node = frontier.pop(k)
        left[order[node]], right[order[node]] = order[nxt], order[nxt + 1]
        frontier += [nxt, nxt + 1]
        nxt += 2
    value = rng.uniform(0.5, 1.5, size=n) * rng.choice([-1.0, 1.0], size=n)
    return left, right, value


def agc_test_inputs(export_name, rng, dims):
    leaves = dims["N"] + 2           # 7 and 4 leaves on the two calls (13 and 7 nodes)
    left, right, value = random_tree(rng, leaves)
    if export_name == "root_prod":
        return [left, right, value]
    if export_name == "subtree_prod":
        internal = np.flatnonzero(left >= 0)
        return [left, right, value.astype(np.float32), np.int64(internal[-1])]
    roots = np.array([0, int(np.flatnonzero(left >= 0)[-1]), int(np.flatnonzero(left < 0)[0])], dtype=np.int64)
    return [left, right, value, roots]
