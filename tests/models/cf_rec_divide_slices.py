"""Divide-and-conquer recursion on slices: each level recurses on halves of its argument (the shape shrinks)."""
import agc
import agc.numpy as np


def halves_sum(x):
    if x.shape[0] == 1:
        return x[0]
    mid = x.shape[0] // 2
    return halves_sum(x[:mid]) + halves_sum(x[mid:])


@agc.export
def divide(x: agc.f64["N"]):
    return halves_sum(x)


AGC_TEST_DIMS = {"N": 11}
