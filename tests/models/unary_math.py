"""np.exp, np.log, np.tanh, np.sqrt, np.abs (log and sqrt on positive inputs)."""
import agc
import agc.numpy as np


@agc.export
def unary_f32(x: agc.f32[3, 5], p: agc.f32[3, 5]):
    return np.exp(x), np.log(p), np.tanh(x), np.sqrt(p), np.abs(x)


@agc.export
def composed(x: agc.f32[7]):
    return np.log(1.0 + np.exp(x)) - np.sqrt(np.abs(np.tanh(x)) + 1e-3)


@agc.export
def abs_int(n: agc.i32[5], m: agc.i64[5]):
    return np.abs(n), np.abs(m), -n


def agc_test_inputs(export_name, rng, dims):
    if export_name == "unary_f32":
        return [rng.standard_normal((3, 5)).astype(np.float32),
                rng.uniform(0.1, 5.0, size=(3, 5)).astype(np.float32)]
    return None   # the harness's default inputs
