import agc
import agc.numpy as np


def positive_part(x):
    if np.sum(x) > 0:  # ERROR: returns a value on some paths \(line 7\) but runs off its end
        return x * 2.0


@agc.export
def f(x: agc.f32[3]):
    return positive_part(x) + 1.0
