import agc
import agc.numpy as np


@agc.export
def f(x: agc.f32[2, 2]):
    return x + np.arange(2, dtpye=np.float32)  # ERROR: did you mean 'dtype'
