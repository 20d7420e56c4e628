"""Mutual recursion `is_even`/`is_odd` over a staged counter (Python bools in the base cases)."""
import agc
import agc.numpy as np


def is_even(n):
    if n == 0:
        return True
    return is_odd(n - 1)


def is_odd(n):
    if n == 0:
        return False
    return is_even(n - 1)


@agc.export(name="parity_zero")
@agc.export(name="parity_seven")
@agc.export(name="parity_forty")
def parity(n: agc.i64[()]):
    return is_even(n), is_odd(n)


@agc.export
def scaled_by_parity(x: agc.f32["N"], n: agc.i32[()]):
    return x * 2 if is_even(n) else x - 1


_N = {"parity_zero": 0, "parity_seven": 7, "parity_forty": 40}


def agc_test_inputs(export_name, rng, dims):
    if export_name == "scaled_by_parity":
        return [rng.standard_normal(dims["N"]).astype(np.float32), np.int32(dims["N"] + 3)]
    return [np.int64(_N[export_name])]
