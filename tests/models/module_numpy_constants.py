"""Compile-time numpy arrays built at module level (constant tables) combined with staged tensors."""
import agc
import numpy as np

TABLE = np.arange(12, dtype=np.float32).reshape(3, 4) / 10
WEIGHTS = np.linspace(-1.0, 1.0, 4).astype(np.float32)
IDENTITY = np.eye(3, dtype=np.float32)


@agc.export
def use_table(x: agc.f32[3, 4]):
    return x * TABLE + WEIGHTS


@agc.export
def project_constant(x: agc.f32["B", 4]):
    return x @ TABLE.T + IDENTITY[0]


@agc.export
def derived_constant(x: agc.f32[4]):
    scale = np.sqrt(np.sum(WEIGHTS ** 2))     # computed at compile time
    return x / scale
