"""A staged loop calling Python helpers, one of which has its own staged `if` and early return."""
import agc
import agc.numpy as np


def soft_threshold(v, lam):
    if np.abs(v) <= lam:
        return np.zeros((), dtype=v.dtype)
    return v - lam if v > 0 else v + lam


def step(h, x, w):
    return np.tanh(h @ w + x)


@agc.export
def shrink_all(x: agc.f32["N"], lam: agc.f32[()]):
    out = []
    for i in range(x.shape[0]):
        out.append(soft_threshold(x[i], lam))
    return np.stack(out)


@agc.export
def run_steps(xs: agc.f32["T", 3], w: agc.f32[3, 3]):
    h = np.zeros(3, dtype=np.float32)
    for t in range(xs.shape[0]):
        h = step(h, xs[t], w)
    return h


def agc_test_inputs(export_name, rng, dims):
    if export_name == "shrink_all":
        return [rng.standard_normal(dims["N"]).astype(np.float32), np.float32(0.5)]
    return None


AGC_TEST_DIMS = {"N": 10}
