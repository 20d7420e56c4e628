"""Conditional expressions `a if c else b` on staged conditions, nested and inside expressions."""
import agc
import agc.numpy as np


@agc.export
def sign_of_sum(x: agc.f32["N"]):
    s = np.sum(x)
    return (x if s > 0 else -x) + (1.0 if s > 0 else -1.0) * np.ones_like(x)


@agc.export
def nested_ternary(x: agc.f64[3], a: agc.f64[()]):
    return x * 2 if a > 1 else (x - a if a > -1 else x * a)


@agc.export
def ternary_tensors(x: agc.f32["N"], y: agc.f32["N"], pick_x: agc.bool_[()]):
    z = x if pick_x else y
    return np.tanh(z) if np.sum(z) > 0 else np.exp(-np.abs(z))


def agc_test_inputs(export_name, rng, dims):
    n = dims["N"]
    odd = n % 2 == 1
    if export_name == "sign_of_sum":
        x = np.abs(rng.standard_normal(n)).astype(np.float32) + 0.1
        return [x if odd else -x]
    if export_name == "nested_ternary":
        return None
    x = np.abs(rng.standard_normal(n)).astype(np.float32)
    return [x, -x, np.bool_(odd)]


@agc.export(name="ternary_high")
@agc.export(name="ternary_mid")
@agc.export(name="ternary_low")
def ternary_cases(x: agc.f64[3], a: agc.f64[()]):
    return nested_ternary(x, a)


_A = {"ternary_high": 2.5, "ternary_mid": 0.25, "ternary_low": -3.0}
_hook = agc_test_inputs


def agc_test_inputs(export_name, rng, dims):  # noqa: F811
    if export_name in _A:
        return [rng.standard_normal(3), np.float64(_A[export_name])]
    return _hook(export_name, rng, dims)
