# fuzz_frontend: x[True] (from x[x is not 0], x[isinstance(t, int)]) was an internal error on a
# run-time sized axis ("an integer index ... reached the static slicing path"); numpy reads a
# bool index as a 0-d mask that adds an axis.
import agc
import agc.numpy as np


@agc.export
def f(x: agc.f32["N", 4]):
    return x[True]
