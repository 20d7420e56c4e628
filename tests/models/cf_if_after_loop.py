"""A staged `if` on the result of a staged loop, and a staged loop inside each branch."""
import agc
import agc.numpy as np


@agc.export
def loop_then_branch(xs: agc.f32["T", 3]):
    acc = np.zeros(3, dtype=np.float32)
    for t in range(xs.shape[0]):
        acc = acc + xs[t]
    if np.sum(acc) > 0:
        out = acc / xs.shape[0]
    else:
        out = -acc
    return out


@agc.export
def branch_with_loops(xs: agc.f32["T", 3], up: agc.bool_[()]):
    if up:
        acc = np.ones(3, dtype=np.float32)
        for t in range(xs.shape[0]):
            acc = acc * (1.0 + 0.1 * xs[t])
    else:
        acc = np.zeros(3, dtype=np.float32)
        t = 0
        while t < xs.shape[0]:
            acc = acc - xs[t]
            t = t + 2
    return acc


def agc_test_inputs(export_name, rng, dims):
    xs = rng.standard_normal((dims["T"], 3)).astype(np.float32)
    if export_name == "loop_then_branch":
        return [np.abs(xs) if dims["T"] % 2 else -np.abs(xs)]
    return [xs, np.bool_(dims["T"] % 2 == 1)]
