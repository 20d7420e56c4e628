"""Indexing with compile-time ints (incl. negative), slices, None and tuples of them."""
import agc
import agc.numpy as np


@agc.export
def int_indices(x: agc.f32[4, 5, 3]):
    return x[0], x[-1], x[1, 2], x[2, -1, 0], x[-2][3]


@agc.export
def mixed_index(x: agc.f32[4, 5, 3]):
    return x[1:3, 0], x[:, -1, 1:], x[None, 2, :, None], x[:, :, 1]


@agc.export
def symbolic_rows(x: agc.f32["B", 5]):
    return x[:, 0] + x[:, -1], x[0], x[-1:]


@agc.export
def index_from_loop(x: agc.f32[3, 4]):
    total = x[0] * 0
    for i in range(len(x)):
        total = total + x[i] * x[-1 - i]
    return total
