"""A staged recursion's result passed to a helper that returns under a staged `if`: while the
recursion's result type is being found, the helper's returned value absorbs it."""
import agc
import agc.numpy as np


def double_unless_base(x, k):
    if k <= 0:
        return x
    return x * 2.0


def rec(x, k):
    if k <= 0:
        return x
    a = rec(x, k - 1)
    return double_unless_base(a, k)


@agc.export
def recursion_through_helper(x: agc.f32[3], n: agc.i32[()]):
    return rec(x, n)


def agc_test_inputs(export_name, rng, dims):
    return [rng.standard_normal(3).astype(np.float32), np.int32(3)]
