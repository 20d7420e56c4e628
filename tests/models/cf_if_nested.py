"""Nested staged `if`s three levels deep; every path is taken by one of the inputs."""
import agc
import agc.numpy as np


def classify(a, b, c):
    if a > 0:
        if b > 0:
            if c > 0:
                code = 7
            else:
                code = 6
        else:
            if c > 0:
                code = 5
            else:
                code = 4
    else:
        if b > 0:
            code = 3
        else:
            if c > 0:
                code = 1
            else:
                code = 0
    return code


@agc.export
def nested_codes(v: agc.f64[8, 3]):
    out = []
    for k in range(8):                     # compile-time range: eight nested ifs, unrolled
        out.append(classify(v[k, 0], v[k, 1], v[k, 2]))
    return np.asarray(out)


@agc.export(name="nested_values_a_b_up")
@agc.export(name="nested_values_a_b_down")
@agc.export(name="nested_values_a_small_b")
@agc.export(name="nested_values_neg_a_pos_b")
@agc.export(name="nested_values_neg_a_neg_b")
def nested_values(x: agc.f32[4], a: agc.f32[()], b: agc.f32[()]):
    y = x
    if a > 0:
        y = y + a
        if b > a:
            y = y * b
            if np.sum(y) > 0:
                y = y - 1
        else:
            y = y - b
    else:
        if b > 0:
            y = y * 0.5
    return y


def agc_test_inputs(export_name, rng, dims):
    if export_name == "nested_codes":
        signs = np.array([[(k >> 2) & 1, (k >> 1) & 1, k & 1] for k in range(8)], dtype=np.float64) * 2 - 1
        return [signs * rng.uniform(0.5, 2.0, size=(8, 3))]
    x = np.abs(rng.standard_normal(4)).astype(np.float32)
    cases = {   # (x sign, a, b): every path through nested_values
        "nested_values_a_b_up": (1, 1.0, 3.0),
        "nested_values_a_b_down": (-1, 1.0, 3.0),
        "nested_values_a_small_b": (1, 2.0, 1.5),
        "nested_values_neg_a_pos_b": (1, -1.0, 1.5),
        "nested_values_neg_a_neg_b": (1, -1.0, -1.0),
    }
    sign, a, b = cases[export_name]
    return [x * sign - (4.0 if sign < 0 else 0.0), np.float32(a), np.float32(b)]

