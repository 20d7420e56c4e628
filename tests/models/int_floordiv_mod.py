"""Integer floor division and modulo with negative operands (numpy/Python semantics: floor, sign of divisor)."""
import agc
import agc.numpy as np


@agc.export
def floordiv_mod_i32(a: agc.i32[10], b: agc.i32[10]):
    return a // b, a % b


@agc.export
def floordiv_mod_i64(a: agc.i64[10], b: agc.i64[10]):
    return a // b, a % b


@agc.export
def by_constants(a: agc.i32[10]):
    return a // 3, a % 3, a // -4, a % -4, -7 // (np.abs(a) + 1)


def agc_test_inputs(export_name, rng, dims):
    a = np.concatenate([[-7, -6, -1, 0, 1, 6, 7], rng.integers(-50, 50, size=3)])
    if export_name == "by_constants":
        return [a.astype(np.int32)]
    b = np.array([2, -2, 3, -3, 5, -5, 1, -1, 7, -9])
    dtype = np.int32 if export_name.endswith("i32") else np.int64
    return [a.astype(dtype), b.astype(dtype)]
