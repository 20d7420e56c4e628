"""A list of per-step results reduced after the loop with `sum`-like Python code and `np.concatenate`."""
import agc
import agc.numpy as np


@agc.export
def concat_steps(xs: agc.f32["T", 2]):
    parts = []
    for t in range(xs.shape[0]):
        parts.append(xs[t] * (t + 1))
    stacked = np.stack(parts)
    return np.concatenate([stacked, stacked * -1], axis=1), np.sum(stacked, axis=0)
