"""A compile-time loop over 130 static rows, each running a staged inner loop that appends to
one list, then appending once more (fuzz finding F20, was O7): the function body is long enough to be cut
into outlined functions, whose calls pass the growing list in and out, and each inner loop's
list goes through a chain break for bufferization."""
import agc
import agc.numpy as np


@agc.export
def grid(xs: agc.f32[130, 3], m: agc.i64[()]):
    out = []
    for i in range(xs.shape[0]):
        for j in range(m % 4 + 1):
            out.append(xs[i] * (j + 1))
        out.append(-xs[i])
    return np.stack(out), len(out)
