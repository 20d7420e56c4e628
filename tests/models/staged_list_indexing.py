"""Staged lists (appended in staged loops) indexed by run-time indices: l[i] for a parameter i,
negative indices, l[-1] read inside the loop that appends, l[t - 1] with the loop counter, and an
index out of range (numpy's IndexError: an error status); staged lists as numpy array-likes
(np.mean(losses), np.sum(rows, axis=0))."""
import agc
import agc.numpy as np

AGC_TEST_NUMPY_RAISES = True  # one export's inputs make numpy raise: the library must return an error status


@agc.export
def read_back(x: agc.f32["N", 3], i: agc.i64[()]):
    hs = []
    for t in range(x.shape[0]):
        hs.append(x[t] * 2)
    return hs[i], hs[-1], hs[-2], hs[i - 1], len(hs)


@agc.export
def recurrence(x: agc.f32["N", 3]):
    hs = [np.zeros(3, np.float32)]
    for t in range(x.shape[0]):
        prev = hs[-1]
        older = hs[t - 1] if t > 0 else prev
        hs.append(np.tanh(prev + older * 0.5 + x[t]))
    return np.stack(hs), hs[len(hs) // 2]


@agc.export
def array_like(x: agc.f32["N", 3]):
    losses = []
    rows = []
    for t in range(x.shape[0]):
        losses.append(np.sum(x[t] ** 2))
        rows.append(x[t] * 2)
    return np.mean(losses), np.max(losses), np.sum(rows, axis=0), np.cumsum(losses)


@agc.export
def out_of_range(x: agc.f32["N", 3], i: agc.i64[()]):
    hs = []
    for t in range(x.shape[0]):
        hs.append(x[t])
    return hs[i]


def agc_test_inputs(name, rng, dims):
    x = rng.standard_normal((dims["N"], 3)).astype(np.float32)
    if name == "read_back":
        return [x, np.int64(-dims["N"] + 1)]
    if name == "out_of_range":
        return [x, np.int64(dims["N"])]
    return None
