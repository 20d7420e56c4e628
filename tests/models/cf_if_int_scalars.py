"""Staged `if` on integer scalar parameters: equality, modulo, comparisons of two run-time ints."""
import agc
import agc.numpy as np


@agc.export
def int_branches(a: agc.i64[()], b: agc.i64[()]):
    if a == b:
        r = a * 100
    elif a % 2 == 0:
        r = a // 2 + b
    elif a > b:
        r = a - b
    else:
        r = b - a + 1000
    return r


@agc.export(name="mixed_zero")
@agc.export
def mixed(x: agc.f64[3], n: agc.i32[()]):
    if n != 0:
        y = x / n
    else:
        y = x
    return y


def agc_test_inputs(export_name, rng, dims):
    if export_name == "int_branches":
        return [np.int64(rng.integers(-6, 7)), np.int64(rng.integers(-6, 7))]
    return None


@agc.export(name="int_eq")
@agc.export(name="int_even")
@agc.export(name="int_greater")
@agc.export(name="int_less")
def int_cases(a: agc.i64[()], b: agc.i64[()]):
    return int_branches(a, b)


_CASES = {"int_eq": (4, 4), "int_even": (6, 1), "int_greater": (7, 2), "int_less": (-3, 8)}
_default_hook = agc_test_inputs


def agc_test_inputs(export_name, rng, dims):  # noqa: F811
    if export_name in _CASES:
        a, b = _CASES[export_name]
        return [np.int64(a), np.int64(b)]
    if export_name == "mixed":
        return [rng.standard_normal(3), np.int32(3)]
    if export_name == "mixed_zero":
        return [rng.standard_normal(3), np.int32(0)]
    return _default_hook(export_name, rng, dims)
