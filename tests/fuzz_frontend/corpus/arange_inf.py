# fuzz_frontend (with arange_huge.py): np.arange(0, inf) was a panic (capacity overflow).
import agc
import agc.numpy as np


@agc.export
def f(x: agc.f32[3]):
    return np.arange(0, float("inf"))
