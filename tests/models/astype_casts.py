"""astype between f32, f64, i32, i64, bool: float->int truncates toward zero, nonzero->True, bool->1."""
import agc
import agc.numpy as np


@agc.export
def float_casts(x: agc.f32[8]):
    return x.astype(np.float64), x.astype(np.int32), x.astype(np.int64), x.astype(np.bool_), x.astype("float32")


@agc.export
def int_casts(n: agc.i32[6], m: agc.i64[6]):
    return n.astype(np.float32), n.astype(np.int64), m.astype(np.int32), m.astype(np.float64), n.astype(bool)


@agc.export
def bool_casts(b: agc.bool_[5]):
    return b.astype(np.float32), b.astype(np.int32), b.astype(np.int64) * 3, b.astype(float)


def agc_test_inputs(export_name, rng, dims):
    if export_name == "float_casts":
        return [np.array([-2.7, -1.0, -0.5, 0.0, 0.4, 1.5, 2.99, 100.25], dtype=np.float32)]
    if export_name == "int_casts":
        return [np.array([-3, -1, 0, 1, 2, 70000], dtype=np.int32), np.array([-5, 0, 1, 2**31 - 1, -(2**31), 7])]
    return None
