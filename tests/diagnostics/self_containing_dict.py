import agc
import agc.numpy as np


@agc.export
def f(x: agc.f32[3]):
    d = {"a": 1}
    d["me"] = [d]  # ERROR: dict that contains itself
    return x + len(d)
