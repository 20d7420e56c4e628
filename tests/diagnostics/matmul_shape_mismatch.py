import agc
import agc.numpy as np


@agc.export
def f(a: agc.f32[3, 4], b: agc.f32[5, 6]):
    c = a * 2
    return c @ b  # ERROR: matmul|@
