"""`continue` in a staged `while`: the update before `continue` keeps the loop going."""
import agc
import agc.numpy as np


@agc.export
def sum_skip_negative(x: agc.f32["N"]):
    i = 0
    total = np.zeros((), dtype=np.float32)
    while i < x.shape[0]:
        v = x[i]
        i = i + 1
        if v < 0:
            continue
        total = total + v
    return total


@agc.export(name="sum_odd_numbers_b")
@agc.export
def sum_odd_numbers(n: agc.i64[()]):
    k = np.zeros((), dtype=np.int64)
    s = np.zeros((), dtype=np.int64)
    while k < n:
        k = k + 1
        if k % 2 == 0:
            continue
        s = s + k
    return s


def agc_test_inputs(export_name, rng, dims):
    if export_name == "sum_odd_numbers":
        return [np.int64(0)]
    if export_name == "sum_odd_numbers_b":
        return [np.int64(37)]
    return None
