"""Several slices of one value inside agc.grad, whose zero-padded adjoints AD merges into one
concatenation when they do not overlap: gate slices along the last axis, overlapping slices
(added, not merged), slices along the first axis with a gap, a slice read twice, a strided
slice next to a unit one (float32)."""
import agc
import agc.numpy as np


def gates_loss(w, x):
    g = x @ w
    return np.sum(np.tanh(g[:, :2]) * g[:, 2:4] + np.exp(g[:, 4:6]) * g[:, 6:])


def mixed_loss(v):
    a = v[:4]
    b = v[2:6]          # overlaps a
    c = v[7:9]          # leaves a gap at v[6]
    d = v[::3]          # strided
    return np.sum(a * a) + np.sum(np.sin(b)) + np.sum(c * v[7:9]) + np.sum(d) + np.sum(c)


def rows_loss(m):
    return np.sum(m[:1] * m[2:3]) + np.sum(np.cos(m[3:]))


@agc.export
def gates(w: agc.f32[3, 8], x: agc.f32[4, 3]):
    return agc.grad(gates_loss)(w, x)


@agc.export
def mixed(v: agc.f32[10]):
    return agc.grad(mixed_loss)(v)


@agc.export
def rows(m: agc.f32[5, 3]):
    return agc.grad(rows_loss)(m)


AGC_GRAD_CHECKS = {"gates": ("gates_loss", 0), "mixed": ("mixed_loss", 0), "rows": ("rows_loss", 0)}
