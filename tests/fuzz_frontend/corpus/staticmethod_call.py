# fuzz_frontend: a module-level function decorated @staticmethod (callable since Python 3.10)
# was an internal error when called: "no method staticmethod for 'function'".
import agc
import agc.numpy as np


@staticmethod
def row_norms(x):
    return np.sum(np.sqrt(np.sum(x * x, axis=1)))


@agc.export
def f(x: agc.f32[3, 4]):
    return row_norms(x), agc.grad(row_norms)(x)
