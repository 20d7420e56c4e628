# fuzz_frontend: np.arange(0, nan) was an empty array; numpy raises "arange: cannot compute length".
import agc
import agc.numpy as np


@agc.export
def g(x: agc.f32[3]):
    return np.arange(0, float("nan")) + x[0]
