import agc
import agc.numpy as np


def steps(x):
    for i in range(x.shape[0]):
        yield x[i] * 2  # ERROR: yield|generator


@agc.export
def f(x: agc.f32["N"]):
    total = np.zeros((), dtype=np.float32)
    for v in steps(x):
        total = total + v
    return total
