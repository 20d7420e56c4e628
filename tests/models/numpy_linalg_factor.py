"""np.linalg.slogdet (float32 and float64, stacks, a singular matrix: sign 0 and -inf, 0x0,
integer input, the result's named fields) and np.linalg.cholesky (a positive-definite matrix
built from the input, float32, stacks, upper=True, and numpy's LinAlgError for a matrix that
is not positive definite: an error status)."""
import agc
import agc.numpy as np

AGC_TEST_NUMPY_RAISES = True  # `not_positive_definite` raises numpy's LinAlgError


@agc.export
def log_determinants(a: agc.f64[4, 4], b: agc.f32[3, 3, 3], k: agc.i64[2, 2]):
    sign, logdet = np.linalg.slogdet(a)
    r = np.linalg.slogdet(b)
    singular = np.linalg.slogdet(np.ones((3, 3)))
    empty = np.linalg.slogdet(np.zeros((2, 0, 0)))
    return (sign, logdet, r.sign, r.logabsdet, singular[0], singular[1], empty[0], empty[1],
            np.linalg.slogdet(k)[1])


@agc.export
def factors(a: agc.f64[4, 4], b: agc.f32[2, 3, 3]):
    spd = a @ a.T + 4.0 * np.eye(4)
    spd_b = b @ np.swapaxes(b, -1, -2) + np.float32(3.0) * np.eye(3, dtype=np.float32)
    low = np.linalg.cholesky(spd)
    return low, np.linalg.cholesky(spd_b), np.linalg.cholesky(spd, upper=True), low @ low.T - spd


@agc.export
def not_positive_definite(a: agc.f64[3, 3]):
    return np.linalg.cholesky(a - 10.0 * np.eye(3))
