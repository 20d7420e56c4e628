"""Python numbers chosen by a staged `if` stay weak: float32 tensors scaled by them stay float32."""
import agc
import agc.numpy as np


@agc.export
def choose_scale(x: agc.f32["N"]):
    if np.sum(x) > 0:
        scale = 2.0
        shift = 1
    else:
        scale = 0.5
        shift = -3
    return x * scale + shift


@agc.export
def ternary_scale(x: agc.i32["N"]):
    k = 3 if np.max(x) > 5 else 7
    return x * k


@agc.export
def ternary_scale_float(x: agc.f32["N"]):
    k = 0.5 if np.max(x) > 0.5 else -2.0
    return x * k


def agc_test_inputs(export_name, rng, dims):
    n = dims["N"]
    if export_name == "choose_scale":
        x = np.abs(rng.standard_normal(n)).astype(np.float32) + 0.1
        return [x if n % 2 else -x]
    if export_name == "ternary_scale_float":
        x = rng.standard_normal(n).astype(np.float32)
        x[0] = 1.0 if n % 2 else 0.0
        return [np.minimum(x, x[0])]
    x = rng.integers(-3, 4, size=n).astype(np.int32)
    if n % 2:
        x[0] = 9
    return [x]
