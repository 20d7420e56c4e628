"""Item assignment into tensors with compile-time indices: ints, negative ints, slices,
columns, blocks, `...`, augmented assignment, boolean masks, casting to the target's dtype."""
import agc
import agc.numpy as np


@agc.export
def writes(x: agc.f32[4, 3], b: agc.f32["N", 3]):
    y = np.zeros((5, 3), dtype=np.float32)
    y[0] = x[1]
    y[-1] = 7
    y[1:3] = x[2:4] * 2
    y[:, 2] = np.float32(-1.5)
    y[3, :2] += 4
    y[..., 0] = y[..., 1] + 1
    z = b.copy()
    z[1:] = z[:-1] * 0.5
    z[:, 1] = 3
    z[b > 0.5] = 0.25
    w = x.astype(np.int32)
    w[2] = 2.9                                   # cast to the target's dtype, as numpy does
    return y, z, w


def agc_test_inputs(export_name, rng, dims):
    return [rng.standard_normal((4, 3)).astype(np.float32), rng.standard_normal((dims["N"], 3)).astype(np.float32)]
