"""reshape (tuple, varargs, -1, method and function), transpose with axes, .T on 1-D/2-D/3-D."""
import agc
import agc.numpy as np


@agc.export
def reshapes(x: agc.f32[2, 3, 4]):
    return (x.reshape(6, 4), x.reshape((4, -1)), np.reshape(x, (-1,)),
            x.reshape(2, 12).reshape(3, 2, 4))


@agc.export
def transposes(x: agc.f32[2, 3, 4], m: agc.f32[3, 5], v: agc.f32[4]):
    return (np.transpose(x), np.transpose(x, (1, 0, 2)), x.transpose(2, 0, 1),
            m.T, v.T, x.T)


@agc.export
def reshape_then_compute(x: agc.f32[4, 6]):
    y = x.reshape(4, 2, 3).transpose(1, 0, 2).reshape(2, 12)
    return y * np.arange(12, dtype=np.float32)
