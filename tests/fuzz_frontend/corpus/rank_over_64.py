# fuzz_frontend (with deep_nested_list.py): more than 64 dimensions by indexing with None.
import agc
import agc.numpy as np


@agc.export
def f(x: agc.f32[3]):
    return x[None, None, None, None, None, None, None, None, None, None, None, None, None, None, None, None, None, None, None, None, None, None, None, None, None, None, None, None, None, None, None, None, None, None, None, None, None, None, None, None, None, None, None, None, None, None, None, None, None, None, None, None, None, None, None, None, None, None, None, None, None, None, None, None, None, None, None, None, None, None]
