import agc
import agc.numpy as np


@agc.export
def f(x: agc.f32["N", 3]):
    def rsum(i):
        if i >= x.shape[0]:
            return x[0] * 0
        return x[i] + rsum(i + 1)  # ERROR: recursion depth .* exceeded in 'rsum'
    return rsum(0)
