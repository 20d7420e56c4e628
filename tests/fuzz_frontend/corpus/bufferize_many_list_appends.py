"""F19 (was O6), shrunk from a seed-22 mutant of tests/models/nested_staged_lists.py: a staged
loop that appends a run-time-length row to one list 50 times per iteration (a compile-time loop,
unrolled). MLIR's one-shot bufferization took minutes while each of the 50 updates threaded the
list through an `scf.for` (every such loop doubled the work of the analysis of the buffer's
type); a loop body of more than 8 updates now writes them as `tensor.insert_slice`s."""
import agc
import agc.numpy as np


@agc.export
def runtime_rows(x: agc.f32["N", 3], m: agc.i64[()]):
    stacked = []
    for i in range(x.shape[0]):
        row = []
        for j in range(m):
            row.append(x[i, j % 3] * j)
        for _ in range(50):
            stacked.append(np.stack(row))
    return np.array(stacked)
