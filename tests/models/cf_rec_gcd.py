"""Tail-recursive Euclid on staged integers."""
import agc
import agc.numpy as np


def gcd(a, b):
    if b == 0:
        return a
    return gcd(b, a % b)


@agc.export(name="gcd_fib")
@agc.export(name="gcd_common")
@agc.export(name="gcd_zero")
def rec_gcd(a: agc.i32[()], b: agc.i32[()]):
    return gcd(a, b)


_AB = {"gcd_fib": (987, 610), "gcd_common": (84, 36), "gcd_zero": (5, 0)}


def agc_test_inputs(export_name, rng, dims):
    return [np.int32(v) for v in _AB[export_name]]
