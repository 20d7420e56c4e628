"""`break` and early `return` in a staged `while` whose condition for leaving is a comparison of
a Python-int counter: the counter becomes loop state, so the exit is staged too (the first trial
iteration sees the counter at 1 and would not break)."""
import agc
import agc.numpy as np


@agc.export
def break_at_two(x: agc.f64[3], n: agc.i32[()]):
    j = 0
    while j < n:
        j = j + 1
        if j == 2:
            break
    return x * j


@agc.export
def break_with_and(x: agc.f64[3], n: agc.i32[()]):
    j = 0
    while j < 4 and n <= 3:
        j = j + 1
        if j > 1:
            break
    return x * j


@agc.export
def early_return(x: agc.f64["B"], n: agc.i32[()]):
    v = x
    j = 0
    while j < n + 1 and np.any(v > 0.25):
        v = v * 0.5
        j = j + 1
        if j == 3:
            return v + j
    return v - j


def agc_test_inputs(export_name, rng, dims):
    if export_name == "early_return":
        return [np.abs(rng.standard_normal(dims["B"])) + 1.0, np.int32(6)]
    return [np.array([1.0, 2.0, 3.0]), np.int32(5 if export_name == "break_at_two" else 1)]
