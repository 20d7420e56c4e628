"""Early `return` inside staged `if`s, also from a helper and from nested branches."""
import agc
import agc.numpy as np


def safe_normalize(x):
    n = np.sqrt(np.sum(x * x))
    if n < 1e-3:
        return x
    return x / n


@agc.export(name="ret_second_negative_sum")
@agc.export(name="ret_first")
@agc.export(name="ret_second")
@agc.export(name="ret_third")
def three_way(x: agc.f32[4], a: agc.f32[()]):
    if a > 1:
        return x * a
    if a < -1:
        if np.sum(x) > 0:
            return x - a
        return x + a
    return safe_normalize(x)


@agc.export
def normalize_rows(x: agc.f32[4, 3]):
    rows = []
    for i in range(4):
        rows.append(safe_normalize(x[i] * (i % 2)))
    return np.stack(rows)


def agc_test_inputs(export_name, rng, dims):
    if export_name == "normalize_rows":
        return [rng.standard_normal((4, 3)).astype(np.float32)]
    x = np.abs(rng.standard_normal(4)).astype(np.float32) + 0.1
    if export_name == "ret_second_negative_sum":
        x = -x
    a = {"ret_first": 2.0, "ret_second": -2.0, "ret_second_negative_sum": -2.0, "ret_third": 0.5}[export_name]
    return [x, np.float32(a)]

