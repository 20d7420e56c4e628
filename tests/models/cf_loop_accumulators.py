"""Loop state follows from the program, not from a trial iteration's values: accumulators whose
value after the first iteration equals their start value (`s = 0; s = s + i` with `i` starting at 0),
in while and for loops, successive loops, loops calling helpers or closures in the body or the
condition, and an inner loop bounded by the outer loop's variable."""
import agc
import agc.numpy as np


def step(s, i):
    return s + i


@agc.export
def while_sum(n: agc.i32[()]):
    s = 0
    i = 0
    while i < n:
        s = s + i
        i = i + 1
    return s


@agc.export
def successive_loops(n: agc.i32[()]):
    s = 0
    i = 0
    while i < n:
        s = s + i
        i = i + 1
    t = 0
    j = 0
    while j < n:
        t = t + s * j
        j = j + 1
    return s, t


@agc.export
def helper_in_body(n: agc.i32[()]):
    s = 0
    i = 0
    while i < n:
        s = step(s, i)
        i = i + 1
    return s


@agc.export
def closure_in_condition(n: agc.i32[()]):
    def more(k):
        return k < n

    s = 0
    i = 0
    while more(i):
        s = s + 2 * i
        i = i + 1
    return s


@agc.export
def float_from_int_start(n: agc.i32[()]):
    s = 0
    for i in range(n):
        s = s + 0.5 * i
    return s


@agc.export
def nested_dependent(n: agc.i32[()]):
    total = 0
    for i in range(n):
        for j in range(i):
            total = total + j
    return total


@agc.export
def chained_accumulators(n: agc.i32[()], x: agc.f32[3]):
    a = 0
    b = 0
    c = 0
    acc = x * 0.0
    for i in range(n):
        c = c + b
        b = b + a
        a = a + i
        acc = acc + c * x
    return a, b, c, acc


@agc.export
def flag_set_late(n: agc.i32[()]):
    seen = False
    i = 0
    while i < n:
        if i == 3:
            seen = True
        i = i + 1
    return seen


def agc_test_inputs(export_name, rng, dims):
    n = np.int32(7)
    if export_name == "chained_accumulators":
        return [n, rng.standard_normal(3).astype(np.float32)]
    return [n]
