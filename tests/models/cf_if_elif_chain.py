"""A staged `if`/`elif`/.../`else` chain: a piecewise function of a run-time scalar."""
import agc
import agc.numpy as np


def piecewise(x, s):
    if s < -2:
        y = x * 0
    elif s < -1:
        y = x - 1
    elif s < 0:
        y = x * x
    elif s < 1:
        y = np.sqrt(np.abs(x))
    elif s < 2:
        y = -x
    else:
        y = x + s
    return y


@agc.export
def chain(x: agc.f32[5], s: agc.f32[()]):
    return piecewise(x, s)


@agc.export
def chain_all(x: agc.f32[5], ss: agc.f32[6]):
    total = np.zeros(5, dtype=np.float32)
    for k in range(6):
        total = total + piecewise(x, ss[k])
    return total


def agc_test_inputs(export_name, rng, dims):
    x = rng.standard_normal(5).astype(np.float32)
    if export_name == "chain":
        return [x, np.float32(rng.choice([-3.0, -1.5, -0.5, 0.5, 1.5, 2.5]))]
    return [x, np.array([-3.0, -1.5, -0.5, 0.5, 1.5, 2.5], dtype=np.float32)]
