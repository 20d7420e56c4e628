"""Tensor lists built in staged loops and stacked on different axes, or turned into an array with `np.array`."""
import agc
import agc.numpy as np


@agc.export
def stack_axis1(xs: agc.f32["T", 3]):
    outs = []
    for t in range(xs.shape[0]):
        outs.append(xs[t] * t)
    return np.stack(outs, axis=1)


@agc.export
def stack_last_axis(xs: agc.f32["T", 2, 3]):
    outs = []
    for m in xs:
        outs.append(m + 1)
    return np.stack(outs, axis=-1)


@agc.export
def scalars_to_array(x: agc.f64["T"]):
    vals = []
    for t in range(x.shape[0]):
        vals.append(x[t] * x[t])
    return np.array(vals)
