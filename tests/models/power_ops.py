"""`**` with integer and fractional exponents, tensor exponents, and integer powers."""
import agc
import agc.numpy as np


@agc.export
def float_powers(x: agc.f32[6]):
    return x ** 2, x ** 3, x ** 0.5, x ** -1, 2.0 ** x


@agc.export
def tensor_power(x: agc.f32[6], y: agc.f32[6]):
    return x ** y


@agc.export
def int_powers(n: agc.i32[6], e: agc.i32[6]):
    return n ** e, n ** 2, 3 ** e


def agc_test_inputs(export_name, rng, dims):
    if export_name == "int_powers":
        return [rng.integers(-4, 5, size=6).astype(np.int32), rng.integers(0, 5, size=6).astype(np.int32)]
    x = rng.uniform(0.5, 2.0, size=6).astype(np.float32)
    if export_name == "tensor_power":
        return [x, rng.uniform(-2.0, 2.0, size=6).astype(np.float32)]
    return [x]
