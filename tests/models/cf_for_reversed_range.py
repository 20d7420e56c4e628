"""`for i in reversed(range(x.shape[0]))`: a staged loop that walks a run-time range backwards."""
import agc
import agc.numpy as np


@agc.export
def reversed_bound(x: agc.f32["N", 2]):
    acc = np.zeros(2, dtype=np.float32)
    for i in reversed(range(x.shape[0])):
        acc = acc * 0.5 + x[i]
    return acc
