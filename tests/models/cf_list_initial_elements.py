"""A list that holds elements before the staged loop appends to it (`outs = [h0]`)."""
import agc
import agc.numpy as np


@agc.export
def with_initial(h0: agc.f32[3], xs: agc.f32["T", 3]):
    outs = [h0]
    h = h0
    for t in range(xs.shape[0]):
        h = h * 0.5 + xs[t]
        outs.append(h)
    return np.stack(outs)


@agc.export
def prepended_twice(xs: agc.f32["T", 2]):
    outs = [xs[0] * 0, xs[0] * 1]
    for t in range(xs.shape[0]):
        outs.append(outs[-1] + xs[t])
    return np.stack(outs), np.asarray(len(outs))
