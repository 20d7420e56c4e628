"""Euclid's algorithm: `while b != 0` on two run-time integers (tuple assignment in the body)."""
import agc
import agc.numpy as np


@agc.export(name="gcd_b")
@agc.export
def gcd(a: agc.i64[()], b: agc.i64[()]):
    while b != 0:
        a, b = b, a % b
    return a


@agc.export(name="gcd_steps_b")
@agc.export
def gcd_steps(a: agc.i32[()], b: agc.i32[()]):
    steps = np.zeros((), dtype=np.int32)
    while b > 0:
        t = b
        b = a % b
        a = t
        steps = steps + 1
    return a, steps


def agc_test_inputs(export_name, rng, dims):
    a, b = rng.integers(1, 5000, size=2)
    g = rng.integers(1, 30)
    if export_name.endswith("_b"):
        a, b, g = 34, 21, 1        # consecutive Fibonacci numbers: many steps
    dt = np.int64 if export_name.startswith("gcd_b") or export_name == "gcd" else np.int32
    return [dt(a * g), dt(b * g)]
