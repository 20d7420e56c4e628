"""F23, from a seed-27 mutant of tests/models/cf_for_break.py (`agc.f32['N', 3]` -> `['N', 0]`):
a run-time row of an array with no columns, `x[i]`, was an extract_slice at offset 0 of the
empty axis, which MLIR 22's verifier rejects (internal error, exit 2)."""
import agc
import agc.numpy as np


@agc.export
def first_negative_row(x: agc.f32["N", 0]):
    row = np.zeros(3, dtype=np.float32)
    for i in range(x.shape[0]):
        if np.min(x[i]) < 0:
            row = x[i]
            break
    return row, x[0]
