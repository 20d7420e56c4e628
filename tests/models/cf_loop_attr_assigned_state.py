"""An object attribute assigned in a staged loop the loop state the probe cannot see change (its
first trial assigns the value it already had): it is loop state all the same (fuzzer finding
4002-2241: "escapes it through a Python object")."""
import agc
import agc.numpy as np


class Holder:
    def __init__(self, b):
        self.b = b


@agc.export
def snapshot_in_loop(x1: agc.f32["B"], n: agc.i32[()]):
    o = Holder(x1)
    j = 0
    while j < n:
        j = j + 1
        if np.sum(x1) > 0.5 * j:
            o.b = x1
        x1 = np.tanh(x1) + 0.5
    return o.b + x1


@agc.export
def two_attrs_in_for(x1: agc.f32["B"], n: agc.i32[()]):
    o = Holder(x1)
    o.c = x1 * 2.0
    for i in range(n):
        o.b, o.c = o.c, x1
        x1 = x1 * 0.5
    return o.b - o.c


def agc_test_inputs(export_name, rng, dims):
    return [rng.uniform(0.0, 1.0, dims["B"]).astype(np.float32), np.int32(4)]
