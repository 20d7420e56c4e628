"""More float32 exp, log and tanh than a module inlines (1,080 here, over the limit of 1,024):
each becomes a call of an out-of-line function, and the loops around the calls call its
16-lane vector variant (backend/src/mlir/approx.rs). Values as numpy's, in every regime the
chain passes through."""
import agc
import numpy as np


@agc.export
def softplus_chain(x: agc.f32["N"]):
    a = x
    b = np.zeros_like(x)
    for i in range(360):
        a = np.tanh(a * 1.3 + x)
        b = np.log(1.0 + np.exp(-np.abs(a) * (i % 7))) + b * 0.5
    return a, b
