"""Two functions recursing into each other over a game tree (minimax): `max_value` and `min_value`."""
import agc
import agc.numpy as np


def max_value(left, right, value, node):
    if left[node] < 0:
        return value[node]
    return np.maximum(min_value(left, right, value, left[node]), min_value(left, right, value, right[node]))


def min_value(left, right, value, node):
    if left[node] < 0:
        return value[node]
    return np.minimum(max_value(left, right, value, left[node]), max_value(left, right, value, right[node]))


@agc.export
def minimax(left: agc.i64["N"], right: agc.i64["N"], value: agc.f32["N"]):
    return max_value(left, right, value, 0), min_value(left, right, value, 0)


def agc_test_inputs(export_name, rng, dims):
    leaves = dims["N"] + 3
    n = 2 * leaves - 1
    left = -np.ones(n, dtype=np.int64)
    right = -np.ones(n, dtype=np.int64)
    frontier, nxt = [0], 1
    while nxt < n:                         # a random full binary tree, nodes in creation order
        node = frontier.pop(rng.integers(len(frontier)))
        left[node], right[node] = nxt, nxt + 1
        frontier += [nxt, nxt + 1]
        nxt += 2
    return [left, right, rng.standard_normal(n).astype(np.float32)]
