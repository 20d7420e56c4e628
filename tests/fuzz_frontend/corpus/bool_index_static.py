# fuzz_frontend (with bool_index.py): y[0, False] on static axes was silently y[0, 0]; numpy's
# result has shape (0, 4).
import agc
import agc.numpy as np


@agc.export
def f(y: agc.f32[3, 4]):
    return y[0, False]
