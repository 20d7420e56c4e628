"""The contract's example: a loop over a symbolic number of steps (range(xs.shape[0]) with T known at run time)."""
import agc
import agc.numpy as np

HIDDEN = 16


def cell(W, U, b, x, h):
    return np.tanh(x @ W + h @ U + b)


@agc.export
def rnn(W: agc.f32[8, HIDDEN], U: agc.f32[HIDDEN, HIDDEN], b: agc.f32[HIDDEN],
        xs: agc.f32["T", "B", 8], h0: agc.f32["B", HIDDEN]):
    h = h0
    for t in range(xs.shape[0]):        # T is only known at run time: a staged loop
        h = cell(W, U, b, xs[t], h)
    return h


AGC_TEST_DIMS = {"T": 7, "B": 3}
