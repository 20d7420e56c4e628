"""`return` from the inner of two nested staged loops leaves both loops and the function."""
import agc
import agc.numpy as np


@agc.export
def first_above(a: agc.f32["N", "M"], t: agc.f32[()]):
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            if a[i, j] > t:
                return np.asarray(i), np.asarray(j), a[i, j]
    return np.asarray(-1), np.asarray(-1), np.zeros((), dtype=np.float32)


def agc_test_inputs(export_name, rng, dims):
    n, m = dims["N"], dims["M"]
    a = rng.uniform(-1.0, 1.0, size=(n, m)).astype(np.float32)
    if n > 4:
        a[n // 2, m - 1] = 5.0      # the first call finds it in the middle; the second finds nothing
    return [a, np.float32(2.0)]


AGC_TEST_DIMS = {"N": 6, "M": 4}
