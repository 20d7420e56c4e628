"""reshape to sizes computed from a symbolic dim (b * 2 where b = x.shape[0])."""
import agc
import agc.numpy as np


@agc.export
def reshape_products(x: agc.f32["B", 6]):
    b = x.shape[0]
    return x.reshape(b * 2, 3), x.reshape(-1), x.reshape(b, 3, 2).sum(axis=2)
