# fuzz_frontend: np.arange with an array bound (np.arange(0.5, x, 0.5)) failed IR verification
# (exit 2: "iota's size is a rank-0 i64"); numpy raises.
import agc
import agc.numpy as np


@agc.export
def f(x: agc.f32[5]):
    return np.arange(0.5, x, 0.5)
