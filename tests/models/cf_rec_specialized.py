"""Staged recursion specialised per compile-time arguments: two modes, and a mode that flips on every level."""
import agc
import agc.numpy as np


def walk(x, n, mode):
    if n <= 0:
        return x
    if mode == "double":
        return walk(x * 2, n - 1, mode)
    if mode == "alternate_a":
        return walk(x + 1, n - 1, "alternate_b")      # a different specialisation each level
    if mode == "alternate_b":
        return walk(x * -1, n - 1, "alternate_a")
    return walk(x - 1, n - 1, mode)


@agc.export(name="walk_double", mode="double")
@agc.export(name="walk_minus", mode="minus")
@agc.export(name="walk_alternate", mode="alternate_a")
def run(x: agc.f64[3], n: agc.i64[()], mode="double"):
    return walk(x, n, mode)


def agc_test_inputs(export_name, rng, dims):
    return [rng.standard_normal(3), np.int64(7)]
