import agc
import agc.numpy as np


@agc.export
def f(a: agc.f32[3], b: agc.f32[2]):
    return np.concatenate((a, b), dtype=np.int32)  # ERROR: Cannot cast array data from dtype\('float32'\) to dtype\('int32'\)
