"""`return` from inside a staged `for` (linear search), and from a loop inside a helper."""
import agc
import agc.numpy as np


def argfirst(x, t):
    for i in range(x.shape[0]):
        if x[i] >= t:
            return np.asarray(i)
    return np.asarray(-1)


@agc.export
def linear_search(x: agc.f32["N"], t: agc.f32[()]):
    return argfirst(x, t)


@agc.export
def search_both(x: agc.f32["N"], t: agc.f32[()]):
    a = argfirst(x, t)
    b = argfirst(-x, t)
    return a * 100 + b


@agc.export
def return_row(x: agc.f64["N", 2]):
    for i in range(x.shape[0]):
        if x[i, 0] > x[i, 1]:
            return x[i] * 2, np.asarray(i)
    return x[0] * 0, np.asarray(-1)


def agc_test_inputs(export_name, rng, dims):
    n = dims["N"]
    if export_name == "return_row":
        x = rng.standard_normal((n, 2))
        if n % 2 == 0:
            x[:, 0] = x[:, 1] - 1.0
        return [x]
    x = np.sort(rng.standard_normal(n)).astype(np.float32)
    return [x, np.float32(0.0 if n % 2 else 50.0)]


AGC_TEST_DIMS = {"N": 7}
