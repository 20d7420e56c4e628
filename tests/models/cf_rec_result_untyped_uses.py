"""Uses of a staged recursion's result while its type is still being inferred: written into an
array by item assignment inside a helper's loop (fuzzer finding 4001-588); the bound of a `for`
over `range(h.shape[0])` and a `for` over its rows (4001-508); appended to a list in such a loop
(4002-466); a list that holds it before a loop appends other values to it (1504-192)."""
import agc
import agc.numpy as np


def mix(h, w):
    buf = np.zeros((4,), dtype=np.float32)
    for i in range(4):
        buf[i] = np.sum(h * w[i])
    return np.tanh(buf)


def tree(i, left, right, emb, w):
    if left[i] < 0:
        return emb[i]
    a = tree(left[i], left, right, emb, w)
    b = tree(right[i], left, right, emb, w)
    return mix(a + b, w)


def shrink(h, w):
    acc = h * 0.5
    rows = []
    for i in range(h.shape[0]):
        acc = acc + w[i] * h[i]
        rows.append(h * w[i])
    for row in w:
        acc = acc - 0.1 * row
    return np.sin(acc) + 0.01 * np.sum(np.stack(rows), axis=0)


def tree_loops(i, left, right, emb, w):
    if left[i] < 0:
        return emb[i]
    a = tree_loops(left[i], left, right, emb, w)
    b = tree_loops(right[i], left, right, emb, w)
    return shrink(b - a, w)


def count_rows(h, w):
    rows = [h]
    for i in range(h.shape[0]):
        rows.append(1.5)
    return np.tanh(h * len(rows) + w[0])


def tree_list(i, left, right, emb, w):
    if left[i] < 0:
        return emb[i]
    a = tree_list(left[i], left, right, emb, w)
    b = tree_list(right[i], left, right, emb, w)
    return count_rows(a * b, w)


@agc.export
def encode_list(emb: agc.f32["N", 4], w: agc.f32[4, 4], left: agc.i64["N"], right: agc.i64["N"]):
    return tree_list(0, left, right, emb, w)


@agc.export
def encode_loops(emb: agc.f32["N", 4], w: agc.f32[4, 4], left: agc.i64["N"], right: agc.i64["N"]):
    return tree_loops(0, left, right, emb, w)


@agc.export
def encode(emb: agc.f32["N", 4], w: agc.f32[4, 4], left: agc.i64["N"], right: agc.i64["N"]):
    return tree(0, left, right, emb, w)


def agc_test_inputs(export_name, rng, dims):
    # node 0 -> (1, 2), node 2 -> (3, 4); the others are leaves; N = 5 or more
    n = max(dims["N"], 5)
    left = -np.ones(n, dtype=np.int64)
    right = -np.ones(n, dtype=np.int64)
    left[0], right[0], left[2], right[2] = 1, 2, 3, 4
    return [rng.standard_normal((n, 4)).astype(np.float32), rng.standard_normal((4, 4)).astype(np.float32),
            left, right]
