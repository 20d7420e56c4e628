"""O7, from a seed-24 mutant of tests/models/cf_list_nested_loops.py: a static first dim of 255
unrolls the outer loop, so the function body holds 255 staged inner loops and 510 appends to one
list. It took about 100 s (MLIR's one-shot analysis over one alias set of every list version,
LLVM on one huge function); with the back end's chain breaks about 40 s (the deallocation
pass's simplification and LLVM, both superlinear in the function), still past the fuzzer's 30 s."""
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
