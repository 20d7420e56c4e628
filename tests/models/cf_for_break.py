"""`break` out of a staged `for` over a run-time range, on a data-dependent condition."""
import agc
import agc.numpy as np


@agc.export
def cumsum_until(x: agc.f32["N"], limit: agc.f32[()]):
    total = np.zeros((), dtype=np.float32)
    used = 0
    for i in range(x.shape[0]):
        if total + x[i] > limit:
            break
        total = total + x[i]
        used = used + 1
    return total, np.asarray(used)


@agc.export
def first_negative_row(x: agc.f32["N", 3]):
    row = np.zeros(3, dtype=np.float32)
    for i in range(x.shape[0]):
        if np.min(x[i]) < 0:
            row = x[i]
            break
    return row


def agc_test_inputs(export_name, rng, dims):
    n = dims["N"]
    if export_name == "cumsum_until":
        x = np.abs(rng.standard_normal(n)).astype(np.float32) + 0.5
        return [x, np.float32(2.0 if n % 2 else 1000.0)]
    x = np.abs(rng.standard_normal((n, 3))).astype(np.float32)
    if n % 2:
        x[n // 2, 1] = -1.0
    return [x]


AGC_TEST_DIMS = {"N": 9}
