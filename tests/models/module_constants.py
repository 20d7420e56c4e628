"""Module-level Python constants (ints, floats, derived values) used in tensor code."""
import agc
import agc.numpy as np

N = 6
SCALE = 0.5
OFFSET = SCALE * 3 - 1          # computed at import time: 0.5
HALF = N // 2
EPS = 1e-3


@agc.export
def scale_shift(x: agc.f32[N, 4]):
    return x * SCALE + OFFSET


@agc.export
def halves(x: agc.f32[N, 4]):
    return x[:HALF] - x[HALF:] * EPS
