"""Fast exponentiation by squaring with a staged exponent: recursion depth depends on the run-time `n`."""
import agc
import agc.numpy as np


def power(x, n):
    if n == 0:
        return np.ones_like(x)
    if n < 0:
        return 1.0 / power(x, -n)
    if n % 2 == 0:
        half = power(x, n // 2)
        return half * half
    return x * power(x, n - 1)


def power_nonneg(x, n):
    if n == 0:
        return np.ones_like(x)
    if n % 2 == 0:
        half = power_nonneg(x, n // 2)
        return half * half
    return x * power_nonneg(x, n - 1)


@agc.export(name="power_zero")
@agc.export(name="power_one")
@agc.export(name="power_odd")
@agc.export(name="power_big")
@agc.export(name="power_negative")
def staged_power(x: agc.f64[4], n: agc.i64[()]):
    return power(x, n)


@agc.export
def int_power(base: agc.i64[()], n: agc.i32[()]):
    return power_nonneg(base, n), power_nonneg(base * 0 + 2, n + 20)


_N = {"power_zero": 0, "power_one": 1, "power_odd": 13, "power_big": 40, "power_negative": -5}


def agc_test_inputs(export_name, rng, dims):
    if export_name == "int_power":
        return [np.int64(3), np.int32(11)]
    return [rng.uniform(0.6, 1.3, size=4) * rng.choice([-1.0, 1.0], size=4), np.int64(_N[export_name])]
