"""Host overhead: one call of a tiny export (z = x + y on 4 float32 elements), from Python.

The peers do the same from Python (numpy, eager torch, a torch.compile'd
function, a jax.jit'ed function, a tf.function). agc's row also runs
`driver.c`, a C program linked against the library that times a million
calls (each releasing its result) and counts their allocations.
"""

import numpy as np

TITLE = "host call (4-element add)"
UNIT = "calls/s"
FRAMEWORKS = ("agc", "numpy", "torch", "torch.compile", "jax", "tf")
TOL = 1e-6


def cases(quick):
    return [{"label": "add 4 floats", "items": 1.0, "c_calls": 100_000 if quick else 1_000_000}]


def data(case):
    return {"x": np.arange(4, dtype=np.float32), "y": np.full(4, 0.5, np.float32)}
