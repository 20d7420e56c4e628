"""Lists and dicts of tensors changed in place inside staged control flow (item writes and
`dict.update` in both branches or one branch of a staged `if`, and in a staged loop) are
merged like variables."""
import agc
import agc.numpy as np


@agc.export
def branch_updates(x: agc.f32["N", 3], c: agc.f32[()]):
    state = {"h": x[0], "n": 0}
    pair = [x[0], x[1]]
    if c > 0:
        state["h"] = x[1] * 2
        pair[0] = x[0] * 3
    else:
        state.update({"n": 1})
    return state["h"], pair[0], pair[1], state["n"]


@agc.export
def loop_updates(x: agc.f32["N", 3], c: agc.f32[()]):
    state = {"h": x[0] * 0, "n": 0.0}
    pair = [x[0], x[1]]
    for i in range(x.shape[0]):
        state["h"] = state["h"] + x[i]
        pair[1] = pair[1] * c
        state.update({"n": state["n"] + x[i, 0]})
    return state["h"], pair[1], state["n"]


def agc_test_inputs(export_name, rng, dims):
    return [rng.standard_normal((dims["N"], 3)).astype(np.float32), np.float32(0.9 if dims["N"] % 2 else -0.9)]
