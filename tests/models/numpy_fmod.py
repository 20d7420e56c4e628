"""np.fmod: C's remainder (the dividend's sign), on floats, ints (a zero divisor gives 0, as
numpy), with broadcasting and Python-scalar operands, against numpy."""
import agc
import agc.numpy as np


@agc.export
def remainders(a: agc.f32["N"], b: agc.f32["N"], i: agc.i64["N"], j: agc.i32["N"], k: agc.i64["N"]):
    return (np.fmod(a, b), np.fmod(a, 0.75), np.fmod(-7.5, b), np.fmod(i, k), np.fmod(i, 3), np.fmod(j, j + 1),
            np.fmod(a[:, None], b[None, :]), np.mod(a, b) - np.fmod(a, b))


def agc_test_inputs(name, rng, dims):
    """Mixed signs, a zero divisor for the ints, and float specials (0, -0, inf, nan)."""
    n = dims["N"]
    a = rng.uniform(-9.0, 9.0, n).astype(np.float32)
    b = rng.uniform(-3.0, 3.0, n).astype(np.float32)
    a[0], b[-1] = np.inf, 0.0
    if n > 2:
        a[1], b[1] = -0.0, np.nan
    i = rng.integers(-20, 20, n)
    k = rng.integers(-4, 5, n)
    k[0] = 0
    j = rng.integers(1, 9, n).astype(np.int32)
    return [a, b, i, j, k]
