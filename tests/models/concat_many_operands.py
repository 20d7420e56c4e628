"""Concatenations of more operands than the backend picks element by element (they are copied into
their slices of the result): pairwise-product columns of a symbolic batch, row blocks of static
and symbolic sizes, a concat inside a staged loop, and gradients through one (float64; eager
oracle: autograd)."""
import agc
import numpy as np


def pairwise(x):
    n = x.shape[1]
    return np.concatenate([x[:, i:i + 1] * x[:, j:j + 1] for i in range(n) for j in range(i, n)], axis=1)


@agc.export
def pairwise_products(x: agc.f32["B", 6]):
    return pairwise(x)


@agc.export
def row_blocks(x: agc.f32["N", 3], y: agc.f32[2, 3]):
    parts = [x * k if k % 2 else y + k for k in range(11)]
    return np.concatenate(parts, axis=0)


@agc.export
def growing_in_a_loop(x: agc.f32[4], steps: agc.i64[()]):
    acc = x
    for _ in range(steps):
        acc = np.concatenate([acc[:1] * 2.0, x, acc[1:2], x, x, acc[:3], x, x, x, acc[2:4]])[:4] * 0.5
    return acc


def loss(x, w):
    return np.sum(np.tanh(pairwise(x)) @ w)


@agc.export
def loss_grad(x: agc.f64["B", 6], w: agc.f64[21]):
    return agc.grad(loss, argnums=(0, 1))(x, w)
