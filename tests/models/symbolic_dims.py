"""Several symbolic dims shared across parameters; symbolic dims in results and reductions."""
import agc
import agc.numpy as np


@agc.export
def project(x: agc.f32["B", "D"], w: agc.f32["D", "K"], b: agc.f32["K"]):
    return x @ w + b


@agc.export
def pairwise_sq_dist(a: agc.f32["N", 3], b: agc.f32["M", 3]):
    d = a[:, None, :] - b[None, :, :]
    return np.sum(d * d, axis=-1)


@agc.export
def row_norms(x: agc.f32["B", "D"]):
    return np.sqrt(np.sum(x * x, axis=1)), x.shape[1] * np.mean(x, axis=0)


AGC_TEST_DIMS = {"B": 5, "D": 7, "K": 3, "N": 4, "M": 6}
