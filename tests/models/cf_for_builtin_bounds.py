"""A staged loop bound written with a Python builtin: `range(len(x))` of a tensor with a run-time first axis."""
import agc
import agc.numpy as np


@agc.export
def len_bound(x: agc.f32["N", 2]):
    acc = np.zeros(2, dtype=np.float32)
    for i in range(len(x)):
        acc = acc * 0.5 + x[i]
    return acc

