from collections import namedtuple

import agc
import agc.numpy as np

Base = namedtuple("Base", "w b")


class Layer(Base):  # ERROR: subclassing the namedtuple 'Base' is not supported
    def apply(self, x):
        return x @ self.w + self.b


@agc.export
def f(x: agc.f32[2, 3], w: agc.f32[3, 4], b: agc.f32[4]):
    return Layer(w, b).apply(x)
