"""Dict items assigned in both branches of a staged `if` (an existing key, and a key neither
dict had before), in a staged loop too: each path's value survives the merge."""
import agc
import agc.numpy as np


@agc.export
def new_key_both_branches(x: agc.f32[3]):
    d = {"a": 1}
    if np.sum(x) > 0:
        d["b"] = 1
    else:
        d["b"] = -1
    return x * d["b"] + d["a"]


@agc.export
def existing_key_both_branches(x: agc.f32[3]):
    d = {"a": x, "b": 0.0}
    if x[0] > 0:
        d["b"] = x * 2.0
    else:
        d["b"] = -x
    return d["a"] + d["b"]


@agc.export
def key_in_loop_branches(x: agc.f32["N"]):
    d = {"s": 0.0, "n": 0}
    for i in range(x.shape[0]):
        if x[i] > 0:
            d["s"] = d["s"] + x[i]
        else:
            d["n"] = d["n"] + 1
    return d["s"], d["n"]
