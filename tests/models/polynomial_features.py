"""Polynomial features of degree 3 (powers and pairwise products) followed by a linear model."""
import agc
import numpy as np

DEGREE = 3


def poly_features(x, degree=DEGREE):
    cols = [np.ones_like(x[:, :1])]
    for d in range(1, degree + 1):
        cols.append(x ** d)
    n = x.shape[1]
    for i in range(n):
        for j in range(i + 1, n):
            cols.append(x[:, i:i + 1] * x[:, j:j + 1])
    return np.concatenate(cols, axis=1)


@agc.export
def features(x: agc.f32["B", 3]):
    return poly_features(x)


@agc.export
def poly_regression(x: agc.f32["B", 3], w: agc.f32[1 + 3 * DEGREE + 3]):
    return poly_features(x) @ w
