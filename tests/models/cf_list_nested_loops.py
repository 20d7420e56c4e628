"""A list appended in an inner staged loop nested in an outer one (rows × a run-time count)."""
import agc
import agc.numpy as np


@agc.export
def grid(xs: agc.f32["N", 3], m: agc.i64[()]):
    out = []
    for i in range(xs.shape[0]):
        for j in range(m):
            out.append(xs[i] * (j + 1))
        out.append(-xs[i])
    return np.stack(out), len(out)


def agc_test_inputs(export_name, rng, dims):
    return [rng.standard_normal((dims["N"], 3)).astype(np.float32), np.int64(3)]
