import agc
import agc.numpy as np


@agc.export
def f(x: agc.f32["N"]):
    acc = np.zeros((), dtype=np.float32)
    for i in range(x.shape[0]):
        acc = acc + x[i]
        print("step", i, acc)  # ERROR: print
    return acc
