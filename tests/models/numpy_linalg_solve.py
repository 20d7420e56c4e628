"""np.linalg.solve, inv and det of static-size matrices and stacks of them (float64, float32,
ints), against numpy; a singular matrix is numpy's LinAlgError (an error status)."""
import agc
import agc.numpy as np

AGC_TEST_NUMPY_RAISES = True  # `inverse_and_solve` gets a singular matrix for its second dims


@agc.export
def inverse_and_solve(a: agc.f64[4, 4], b: agc.f64[4], rhs: agc.f64[4, "K"]):
    return np.linalg.inv(a), np.linalg.solve(a, b), np.linalg.solve(a, rhs), np.linalg.inv(a) @ a


@agc.export
def stacked(c: agc.f32["B", 3, 3], d: agc.f32["B", 3, 2], k: agc.i64[2, 2]):
    return (np.linalg.solve(c, d), np.linalg.inv(c), np.linalg.det(c), np.linalg.det(k),
            np.linalg.det(np.zeros((3, 3))), np.linalg.det(c[0] * 2.0))


@agc.export
def least_squares(x: agc.f64["N", 3], y: agc.f64["N"], lam: agc.f64[()]):
    """Ridge regression in closed form: (X^T X + lam I)^-1 X^T y."""
    gram = x.T @ x + lam * np.eye(3)
    return np.linalg.solve(gram, x.T @ y), np.linalg.det(gram)


@agc.export
def empty_matrices(a: agc.f64[0, 0], c: agc.f32["B", 0, 0], b: agc.f64[0, 2]):
    """numpy: the determinant of a 0x0 matrix is 1; inverses and solutions are empty."""
    return np.linalg.det(a), np.linalg.det(c), np.linalg.inv(c), np.linalg.solve(a, b)


def agc_test_inputs(name, rng, dims):
    """`inverse_and_solve`: a well-conditioned matrix for the first dims, a singular one (a zero
    row: an exact zero pivot whatever the order of elimination) for the second; `least_squares`: a positive ridge weight."""
    if name == "inverse_and_solve":
        a = rng.standard_normal((4, 4)) + 4.0 * np.eye(4)
        if dims["K"] < 3:
            a[2] = 0.0
        return [a, rng.standard_normal(4), rng.standard_normal((4, dims["K"]))]
    if name == "least_squares":
        n = dims["N"]
        return [rng.standard_normal((n, 3)), rng.standard_normal(n), np.float64(0.5)]
    return None
