"""Slices of static axes that select nothing (`x[3:]` of 3 rows, `x[:, 1:]` of one column): an
empty array of the right shape, also as an operand (numpy's semantics). These were an internal
error (MLIR rejects a view at the end of an axis)."""
import agc
import agc.numpy as np


@agc.export
def empty_views(x: agc.f32[3, 1], y: agc.f32["N", 2]):
    return (x[:, 1:], x[3:], x[:, 1:] + 1.0, np.concatenate([x, x[:, 1:]], axis=1), y[:, 2:],
            x[5:, :0].sum(), x[1:1])
