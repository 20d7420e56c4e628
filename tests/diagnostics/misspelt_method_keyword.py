import agc
import agc.numpy as np


@agc.export
def f(x: agc.f32[3, 4]):
    return x.mean(axes=0)  # ERROR: TypeError: ndarray.mean\(\) got an unexpected keyword argument 'axes' \(did you mean 'axis'\?\)
