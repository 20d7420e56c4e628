# fuzz_frontend (same class as arange_huge.py): np.eye(10**6) was folded into an 8 TB
# constant (the compiler aborted); now an error naming agc's limit.
import agc
import agc.numpy as np


@agc.export
def f(x: agc.f32[3]):
    return np.eye(10 ** 6)[0, :3] + x
