"""Item assignment with run-time indices and inside staged control flow: the buffer written in a
staged loop is its state, writes in a staged `if` are merged, `out[t] = h` builds an RNN's outputs."""
import agc
import agc.numpy as np


@agc.export
def rnn_outputs(xs: agc.f32["T", 4], w: agc.f32[4, 4]):
    out = np.zeros((xs.shape[0], 4), dtype=np.float32)
    h = np.zeros(4, dtype=np.float32)
    for t in range(xs.shape[0]):
        h = np.tanh(xs[t] @ w + h)
        out[t] = h
        if np.sum(h) > 0:
            out[t, 0] = -1.0
    return out


@agc.export
def histogram(idx: agc.i64["N"], bins: agc.i64[()]):
    counts = np.zeros(8, dtype=np.int64)
    i = 0
    while i < idx.shape[0]:
        counts[idx[i] % bins] += 1
        i += 1
    counts[-1] = bins
    return counts


@agc.export
def column_write(x: agc.f32["N", 5], j: agc.i64[()]):
    y = x * 1.0
    y[:, j] = 0
    y[j % x.shape[0], 1:3] = 9
    return y


def agc_test_inputs(export_name, rng, dims):
    n = dims.get("T", dims.get("N", 5))
    if export_name == "rnn_outputs":
        return [rng.standard_normal((n, 4)).astype(np.float32), (0.5 * rng.standard_normal((4, 4))).astype(np.float32)]
    if export_name == "histogram":
        return [rng.integers(0, 100, size=n).astype(np.int64), np.int64(5)]
    return [rng.standard_normal((n, 5)).astype(np.float32), np.int64(3)]
