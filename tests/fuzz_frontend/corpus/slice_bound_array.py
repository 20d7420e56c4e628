# fuzz_frontend: a slice bound that is a staged array (x[i:] with i of shape (2,)) was staged
# as a dyn_slice and failed IR verification (exit 2: "dyn_slice takes ... rank-0 i64 bounds").
import agc
import agc.numpy as np


@agc.export
def f(x: agc.f32[5, 4, 6], i: agc.i64[2]):
    return x[i:, [0, 1]]
