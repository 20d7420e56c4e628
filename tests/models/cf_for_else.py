"""`for ... else` over a staged range: `else` runs when the loop was not left by `break`."""
import agc
import agc.numpy as np


def find_row(x, t):
    hit = np.asarray(-1)
    for i in range(x.shape[0]):
        if np.sum(x[i]) > t:
            hit = np.asarray(i)
            break
    else:
        hit = np.asarray(1000)
    return hit


@agc.export
def for_else(x: agc.f32["N", 2], t: agc.f32[()]):
    return find_row(x, t)


def agc_test_inputs(export_name, rng, dims):
    n = dims["N"]
    x = rng.standard_normal((n, 2)).astype(np.float32)
    return [x, np.float32(0.5 if n % 2 else 100.0)]
