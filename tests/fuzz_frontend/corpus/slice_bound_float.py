# fuzz_frontend (with slice_bound_array.py): a staged float slice bound was cast to an int;
# numpy raises "slice indices must be integers or None".
import agc
import agc.numpy as np


@agc.export
def f(x: agc.f32["N"]):
    return x[np.sum(x):]
