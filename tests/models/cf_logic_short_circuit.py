"""`and`/`or` short-circuit on staged values: the right operand (an index) is not evaluated when the left decides."""
import agc
import agc.numpy as np


@agc.export
def first_nonpositive(x: agc.f32["N"]):
    i = 0
    while i < x.shape[0] and x[i] > 0:      # x[i] with i == N must not be evaluated
        i = i + 1
    return np.asarray(i)


@agc.export
def guarded_index(x: agc.f32["N"], k: agc.i64[()]):
    if k >= 0 and k < x.shape[0] and x[k] > 0:
        return x[k]
    return np.asarray(-1.0, dtype=np.float32)


@agc.export
def guarded_or(x: agc.f32["N"], k: agc.i64[()]):
    if k < 0 or k >= x.shape[0] or x[k] < 0:
        return np.zeros((), dtype=np.float32)
    return x[k] * 2


def agc_test_inputs(export_name, rng, dims):
    n = dims["N"]
    x = np.abs(rng.standard_normal(n)).astype(np.float32) + 0.1
    if export_name == "first_nonpositive":
        if n % 2:
            x[n // 2] = -1.0       # stops in the middle; otherwise runs off the end
        return [x]
    k = n + 3 if n % 2 else 1       # out of range on the first call, in range on the second
    return [x, np.int64(k)]
