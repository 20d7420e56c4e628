"""Reshapes of arrays with a run-time size and a size-0 axis ([N, 0]): flattening them once made
MLIR 22's canonicalizer build a collapse_shape its verifier rejects (an internal error, found by
the front-end fuzzer in a gradient of staged-list rows)."""
import agc
import numpy as np


@agc.export
def empty_rows(x: agc.f32["N", 3], m: agc.i64[()]):
    e = np.tanh(x[:, :0])
    rows = []
    for i in range(x.shape[0]):
        row = []
        for j in range(m):
            row.append(x[i, j % 3] * (j + 1))
        rows.append(row)
    t = np.tanh(np.array(rows))
    return np.ravel(e), e.reshape(-1), np.sum(e, axis=1), np.ravel(t), np.sum(t)


def agc_test_inputs(export_name, rng, dims):
    # Rows of m > 0 items: numpy types an array of empty lists float64 (agc: float32, from
    # what the rows would hold).
    return [rng.standard_normal((dims["N"], 3)).astype(np.float32), np.array(2)]
