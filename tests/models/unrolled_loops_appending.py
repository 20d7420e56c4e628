"""A compile-time loop over 64 static rows, each running a staged inner loop that appends to
one list, then appending once more (the shape of fuzz finding O7): each inner loop's list goes
through a chain break for bufferization."""
import agc
import agc.numpy as np


@agc.export
def grid(xs: agc.f32[64, 3], m: agc.i64[()]):
    out = []
    for i in range(xs.shape[0]):
        for j in range(m % 4 + 1):
            out.append(xs[i] * (j + 1))
        out.append(-xs[i])
    return np.stack(out), len(out)
