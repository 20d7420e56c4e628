"""Slices that are not one contiguous run of their source (a column, an inner block of a matrix)
reaching a call, a continuation or a branch: they are copied, where a contiguous slice (rows of a
batch) is passed on as a view; a view's strides would not be the row-major ones a called function
takes (fuzz finding F25: bufferization failed to build such programs). Gradients: eager oracle
autograd."""
import agc
import numpy as np


def loss_through_branch(x):
    col = np.zeros((2, 2))[:, -2]
    if np.sum(x) > 1.0:
        pass
    else:
        x = np.roll(x, 1)
    return np.sum(col + x)


@agc.export
def column_in_gradient(x: agc.f32[2]):
    return agc.value_and_grad(loss_through_branch)(x)[1]


def total(m, n):
    if n <= 0:
        return np.sum(m)
    return total(m * 0.5, n - 1) + m[0, 0]


@agc.export
def blocks_to_recursion(a: agc.f64[4, 4], n: agc.i64[()]):
    return total(a[1:3, 1:3], n) + total(a[:, 2:3], n) + total(a[1:2, :], n)


def weighted(a, w):
    return np.sum(np.tanh(a[:, 1:3] * w) + a[2:3, 1:3])


@agc.export
def block_gradient(a: agc.f64[4, 4], w: agc.f64[2]):
    return agc.grad(weighted, argnums=(0, 1))(a, w)
