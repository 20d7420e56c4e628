import agc
import agc.numpy as np

W = agc.Variable(np.zeros(3, np.float32))


@agc.export
def f(x: agc.f64[3]):
    W.assign(x)  # ERROR: f32\[3\] cannot be assigned a value of type f64
    return W
