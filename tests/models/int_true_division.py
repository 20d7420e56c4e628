"""int / int gives float64 for i32 and i64 operands; np.divide; int / float32."""
import agc
import agc.numpy as np


@agc.export
def int_div(a: agc.i32[6], b: agc.i32[6], c: agc.i64[6]):
    return a / b, c / a, np.divide(a, 4), a / np.float32(2.0)


def agc_test_inputs(export_name, rng, dims):
    a = rng.integers(-20, 20, size=6).astype(np.int32)
    b = np.array([1, -2, 3, -4, 5, 7], dtype=np.int32)
    c = rng.integers(-1000, 1000, size=6)
    return [a, b, c]
