"""A helper function with a staged `if`, called several times (each call its own staged branch)."""
import agc
import agc.numpy as np


def leaky(x, slope):
    if np.min(x) >= 0:
        return x
    return np.where(x > 0, x, x * slope)


def gate(x, g):
    return leaky(x, 0.1) if g > 0 else leaky(-x, 0.2)


@agc.export
def helpers(x: agc.f32["N"], gates: agc.f32[3]):
    y = gate(x, gates[0])
    y = gate(y, gates[1])
    y = gate(y + 0.5, gates[2])
    return y


def agc_test_inputs(export_name, rng, dims):
    x = rng.standard_normal(dims["N"]).astype(np.float32)
    gates = np.array([1.0, -1.0, 1.0] if dims["N"] % 2 else [-1.0, 1.0, -1.0], dtype=np.float32)
    if dims["N"] % 2 == 0:
        x = np.abs(x)
    return [x, gates]
