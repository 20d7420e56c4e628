import agc
import agc.numpy as np


@agc.export
def f(x: agc.f32[3, 4]):
    return np.sum(x, axis=1, keepdim=True)  # ERROR: TypeError: sum\(\) got an unexpected keyword argument 'keepdim' \(did you mean 'keepdims'\?\)
