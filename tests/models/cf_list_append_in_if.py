"""Appending to a list inside a staged `if` outside any loop: the list's length differs between
the branches, so it becomes a staged list (and the `if` is traced again with it)."""
import agc
import agc.numpy as np


@agc.export
def maybe_extend(x: agc.f32["N", 3], c: agc.f32[()]):
    outs = [x[0]]
    if c > 0:
        outs.append(x[1] * 2)
        outs.append(x[1] * 3)
    else:
        outs.append(-x[0])
    if np.sum(x) > c:
        outs.append(x[-1])
    return np.stack(outs), len(outs)


def agc_test_inputs(export_name, rng, dims):
    n = max(dims["N"], 2)
    return [rng.standard_normal((n, 3)).astype(np.float32), np.float32(0.5 if n % 2 else -0.5)]
