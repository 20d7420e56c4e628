"""Compile-time Python ints at the edges of 64 bits: shifts, floor division and modulo of
negative numbers, powers of -1 and 1 with huge exponents, int()/round() of floats, ranges with
negative and large steps; the results feed a staged tensor so the compiled value is checked
against CPython's."""
import agc
import agc.numpy as np


@agc.export
def ints(x: agc.f64[8]):
    a = (3 << 4) + (-7 >> 1) + (-1 << 63) // (1 << 62) + (5 >> 100) + (-5 >> 100)
    b = (-7) // 2 + (-7) % 2 + 7 % -3 + (-(2**62) * 2) % 7 + (2**62 - 1 + 2**62) // -(2**62)
    c = (-1) ** (2**40 + 1) + 1 ** (2**62) + 0 ** 5 + (-3) ** 3
    d = round(2.5) + round(3.5) + round(-2.5) + int(-3.7) + int(3.99) + round(7) + round(1e15 + 0.5)
    e = len(range(0, 100, 7)) + len(range(10, -3, -4)) + len(range(5, 5)) + sum(range(-(2**62), 2**62, 2**61))
    return x + np.array([a, b, c, d, e, abs(-(2**62)), -(-(2**62)), 2**62 + (2**62 - 1)], dtype=np.float64)
