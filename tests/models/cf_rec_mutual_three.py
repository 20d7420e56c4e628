"""A cycle of three mutually recursive functions over a staged counter (n mod 3)."""
import agc
import agc.numpy as np


def r0(n, x):
    if n <= 0:
        return x
    return r1(n - 1, x + 1)


def r1(n, x):
    if n <= 0:
        return x * 10
    return r2(n - 1, x * 2)


def r2(n, x):
    if n <= 0:
        return -x
    return r0(n - 1, x - 3)


@agc.export(name="three_0")
@agc.export(name="three_7")
@agc.export(name="three_11")
def cycle(n: agc.i64[()], x: agc.f64[2]):
    return r0(n, x)


def agc_test_inputs(export_name, rng, dims):
    return [np.int64(int(export_name.split("_")[1])), rng.standard_normal(2)]
