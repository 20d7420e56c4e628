"""Temporaries whose shape differs between paths are fine when nothing reads them afterwards
(liveness decides what a staged `if` returns and a staged loop carries)."""
import agc
import agc.numpy as np


@agc.export
def dead_temporaries(x: agc.f32["N", 3], c: agc.f32[()]):
    tmp = np.zeros(2, dtype=np.float32)          # a different shape from the loop's tmp
    total = np.zeros(3, dtype=np.float32)
    for i in range(x.shape[0]):
        tmp = x[i] * c
        total = total + np.tanh(tmp)
    if c > 0:
        part = x[0, :2]
        y = np.sum(part)
    else:
        part = x[0]
        y = np.max(part)
    return total, y


def agc_test_inputs(export_name, rng, dims):
    x = rng.standard_normal((dims["N"], 3)).astype(np.float32)
    return [x, np.float32(0.7 if dims["N"] % 2 else -0.4)]
