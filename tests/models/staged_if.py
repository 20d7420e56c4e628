"""`if` and conditional expressions on staged (run-time) values, including an early return."""
import agc
import agc.numpy as np


@agc.export
def sign_branch(x: agc.f32[4]):
    if np.sum(x) > 0:
        y = x * 2
    else:
        y = -x
    return y


@agc.export
def early_return(x: agc.f32[4], t: agc.f32[()]):
    if np.max(x) > t:
        return x - t
    z = x * t
    return z + 1


@agc.export
def conditional_expression(x: agc.f32[3], flag: agc.bool_[()]):
    return x + 1 if flag else x * 10


@agc.export
def nested(x: agc.f32[3], a: agc.f32[()], b: agc.f32[()]):
    out = x
    if a > 0:
        if b > 0:
            out = x + a + b
        else:
            out = x + a - b
    elif b > 0:
        out = x - a
    return out


def agc_test_inputs(export_name, rng, dims):
    x = rng.standard_normal(4 if export_name in ("sign_branch", "early_return") else 3).astype(np.float32)
    if export_name == "early_return":
        return [x, np.float32(rng.choice([-5.0, 0.0, 5.0]))]
    if export_name == "conditional_expression":
        return [x, np.bool_(rng.random() < 0.5)]
    if export_name == "nested":
        return [x, np.float32(rng.choice([-1.0, 1.0])), np.float32(rng.choice([-2.0, 2.0]))]
    return [x]
