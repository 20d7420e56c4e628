# fuzz_frontend F17 (was O5; tests/fuzz_frontend/FINDINGS.md): seed 13's mutant 1167 of
# tests/models/polynomial_features.py, 64 columns instead of 3: 2,016 pairwise products
# concatenated. `agc build` spent minutes in MLIR on the concat, whose loop body nested an
# `scf.if` per operand; a concat of more than 8 operands is now copied into slices.
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
def features(x: agc.f32["B", 64]):
    return poly_features(x)


@agc.export
def poly_regression(x: agc.f32["B", 64], w: agc.f32[1 + 64 * DEGREE + 2016]):
    return poly_features(x) @ w
