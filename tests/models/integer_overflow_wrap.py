"""Integer arithmetic wraps modulo 2**32 / 2**64 as numpy arrays do; astype narrowing wraps; abs(INT_MIN) == INT_MIN."""
import agc
import agc.numpy as np


@agc.export
def wrap_i32(a: agc.i32[6], b: agc.i32[6]):
    return a + b, a * b, a - b, -a, np.abs(a)


@agc.export
def wrap_i64(a: agc.i64[4]):
    return a * 3, a + a


@agc.export
def narrowing_casts(a: agc.i64[5]):
    return a.astype(np.int32), a.astype(np.int32).astype(np.int64)


def agc_test_inputs(export_name, rng, dims):
    big = 2**31 - 1
    if export_name == "wrap_i32":
        a = np.array([big, -big - 1, 65536, -65536, 123456789, 7], np.int32)
        b = np.array([1, -1, 65536, 65537, 987654321, -8], np.int32)
        return [a, b]
    if export_name == "wrap_i64":
        return [np.array([2**62, -(2**62), 2**63 - 1, -(2**63)], np.int64)]
    return [np.array([2**31, 2**32 + 5, -(2**31) - 1, 2**40 + 2**31, -1], np.int64)]
