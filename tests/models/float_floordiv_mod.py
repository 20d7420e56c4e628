"""Float floor division and modulo: numpy's floor semantics with negative operands."""
import agc
import agc.numpy as np


@agc.export
def floordiv_mod_f32(a: agc.f32[8], b: agc.f32[8]):
    return a // b, a % b


@agc.export
def floordiv_mod_f64(a: agc.f64[8], b: agc.f64[8]):
    return np.floor_divide(a, b), np.mod(a, b)


def agc_test_inputs(export_name, rng, dims):
    dtype = np.float32 if export_name.endswith("f32") else np.float64
    a = np.array([-7.5, 7.5, -0.25, 3.0, -3.0, 5.75, 1.1, -9.3])
    b = np.array([2.0, -2.0, 1.5, -1.25, 0.75, 2.5, -0.5, 4.0])
    return [a.astype(dtype), b.astype(dtype)]
