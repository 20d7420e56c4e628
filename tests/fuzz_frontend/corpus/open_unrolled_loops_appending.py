"""O7, from a seed-24 mutant of tests/models/cf_list_nested_loops.py: a static first dim of 255
unrolls the outer loop, so the function body holds 255 staged inner loops and 510 appends to one
list. The build takes about 100 s (64 rows: 4.9 s, 128: 13.6 s), in MLIR's one-shot bufferization
and LLVM, growing faster than the program."""
import agc
import agc.numpy as np


@agc.export
def grid(xs: agc.f32[255, 3], m: agc.i64[()]):
    out = []
    for i in range(xs.shape[0]):
        for j in range(m):
            out.append(xs[i] * (j + 1))
        out.append(-xs[i])
    return (np.stack(out), len(out))
