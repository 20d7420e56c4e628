"""Integer // and % by zero give 0 in numpy; a compiled library must return that, never trap (SIGFPE)."""
import agc
import agc.numpy as np

AGC_EXPECTS_FP_EXCEPTIONS = True   # numpy warns "divide by zero"
AGC_TEST_ISOLATE = True            # a trap would kill the test process: call the library in a subprocess


@agc.export
def div_by_zero_i32(a: agc.i32[6], b: agc.i32[6]):
    return a // b, a % b


@agc.export
def div_by_zero_i64(a: agc.i64[6], b: agc.i64[6]):
    return a // b, a % b, a // 0


@agc.export
def int_min_by_minus_one(a: agc.i32[3], b: agc.i32[3]):
    return a // b, a % b


def agc_test_inputs(export_name, rng, dims):
    if export_name == "int_min_by_minus_one":
        return [np.array([-(2**31), 7, -(2**31)], np.int32), np.array([-1, -1, 1], np.int32)]
    dtype = np.int32 if export_name.endswith("i32") else np.int64
    return [np.array([7, -7, 0, 5, -3, 9], dtype), np.array([0, 0, 0, 2, -2, 0], dtype)]
