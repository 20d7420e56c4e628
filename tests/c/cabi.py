"""The model the C and C++ drivers in tests/c call (library name: cabi)."""
import agc
import agc.numpy as np


@agc.export
def affine(x: agc.f32["B", 4], w: agc.f32[4, 3], b: agc.f32[3]):
    """y = x @ w + b, and the index of the largest entry of each row of y."""
    y = x @ w + b
    return y, np.argmax(y, axis=1)


@agc.export
def sumsq(v: agc.f64["N"]):
    """The sum of squares of v, a 0-d result."""
    return np.sum(v * v)


@agc.export
def project(x: agc.f32["B", 64], w: agc.f32[64, 128]):
    """x @ w: large enough (B = 512: 2^22 multiply-adds) to run on the library's threads."""
    return x @ w


@agc.export
def positives(x: agc.f32["N"]):
    """0 followed by the positive entries of x (a length only the data determines), and that length."""
    kept = [np.zeros((), dtype=np.float32)]
    for i in range(x.shape[0]):
        if x[i] > 0:
            kept.append(x[i])
    return np.stack(kept), np.asarray(len(kept))


def _encode(w, leaves, left, right, node):
    if left[node] < 0:
        return np.tanh(leaves[node])
    h = _encode(w, leaves, left, right, left[node]) + _encode(w, leaves, left, right, right[node])
    return np.tanh(h @ w)


def _tree_loss(w, leaves, left, right):
    return np.sum(_encode(w, leaves, left, right, 0) ** 2)


@agc.export
def tree_grad(w: agc.f32[3, 3], leaves: agc.f32["N", 3], left: agc.i64["N"], right: agc.i64["N"]):
    """Gradients of a recursive tree network's loss (continuations at every level of the recursion)."""
    return agc.grad(_tree_loss, argnums=(0, 1))(w, leaves, left, right)


# The drivers' deterministic inputs, element i of the flattened array (mirrored in inputs.h).
def x_value(i, t=0):
    return np.float32(((i * 7 + t) % 11 - 5) / 4.0)


def w_value(i):
    return np.float32(((i * 5) % 9 - 4) / 8.0)


def b_value(i):
    return np.float32((i % 3 - 1) / 2.0)


def v_value(i):
    return np.float64(((i * 3) % 7 - 3) / 3.0)


def _chain(x, k):
    if k == 0:
        n = x.shape[0]
        return np.sum(np.ones((n, n, n), np.float32))
    return np.tanh(_chain(x * 2.0, k - 1) + np.sum(x))


@agc.export
def chain(x: agc.f32["N"], k: agc.i64[()]):
    """A recursion k deep whose levels hold x-sized tensors, ending in an N^3 tensor: out of memory
    (status 2) for large N, deep inside the recursion."""
    return _chain(x, k)
