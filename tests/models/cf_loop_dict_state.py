"""Loop state held in a dict of tensors and a Python int counter, rebuilt on every step of a staged `while`."""
import agc
import agc.numpy as np


@agc.export
def dict_state(xs: agc.f32["T", 3]):
    st = {"sum": np.zeros(3, dtype=np.float32), "max": xs[0], "count": 0}
    i = 0
    while i < xs.shape[0]:
        st = {"sum": st["sum"] + xs[i], "max": np.maximum(st["max"], xs[i]), "count": st["count"] + 1}
        i += 1
    return st["sum"], st["max"], np.asarray(st["count"])



AGC_TEST_DIMS = {"T": 5}
