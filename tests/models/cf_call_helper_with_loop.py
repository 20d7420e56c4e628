"""A helper holding a staged loop, called several times with different arguments and from a staged loop."""
import agc
import agc.numpy as np


def horner(coeffs, x):
    acc = np.zeros_like(x)
    for i in range(coeffs.shape[0]):
        acc = acc * x + coeffs[i]
    return acc


@agc.export
def polys(c1: agc.f64["P"], c2: agc.f64["Q"], x: agc.f64[4]):
    return horner(c1, x) + horner(c2, x) * 2


@agc.export
def poly_of_rows(c: agc.f64["P"], xs: agc.f64["N", 3]):
    out = []
    for row in xs:
        out.append(horner(c, row))
    return np.stack(out)


AGC_TEST_DIMS = {"P": 4, "Q": 2, "N": 3}
