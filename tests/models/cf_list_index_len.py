"""A list filled in a staged loop: `len()`, indexing with constants, negative constants and a run-time index."""
import agc
import agc.numpy as np


@agc.export
def list_ops(xs: agc.f32["T", 2], k: agc.i64[()]):
    hs = []
    h = np.zeros(2, dtype=np.float32)
    for t in range(xs.shape[0]):
        h = h + xs[t]
        hs.append(h)
    return np.asarray(len(hs)), hs[0], hs[-1], hs[k]


def agc_test_inputs(export_name, rng, dims):
    t = dims["T"]
    # second call: k == -T (the first element)
    return [rng.standard_normal((t, 2)).astype(np.float32), np.int64(t // 2 if t % 2 else -t)]
