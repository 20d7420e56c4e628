"""Two appends to one list per iteration of a staged loop: the list holds twice the trip count."""
import agc
import agc.numpy as np


@agc.export
def interleave(xs: agc.f32["T", 3]):
    items = []
    for t in range(xs.shape[0]):
        items.append(xs[t])
        items.append(np.tanh(xs[t]) * 2)
    return np.stack(items)
