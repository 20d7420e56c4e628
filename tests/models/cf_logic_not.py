"""`not` on staged booleans and comparisons, in `if`, `while` and as a value."""
import agc
import agc.numpy as np


@agc.export(name="negate_true_pos")
@agc.export(name="negate_false_neg")
def negate(flag: agc.bool_[()], x: agc.f32[3]):
    if not flag:
        x = x * 3
    if not (np.sum(x) > 0):
        x = -x
    return x, np.logical_not(flag)


@agc.export(name="count_not_b")
@agc.export
def count_not(n: agc.i64[()]):
    i = np.zeros((), dtype=np.int64)
    while not (i >= n):
        i = i + 1
    return i


@agc.export
def not_in_expr(a: agc.f32[()], b: agc.f32[()]):
    return (a if not (a > b) else b), (not (a > b)) and (not (b > 10))


def agc_test_inputs(export_name, rng, dims):
    if export_name.startswith("negate"):
        x = np.abs(rng.standard_normal(3)).astype(np.float32) + 0.1
        if export_name == "negate_true_pos":
            return [np.bool_(True), x]
        return [np.bool_(False), -x]
    if export_name.startswith("count_not"):
        return [np.int64(7 if export_name == "count_not" else 0)]
    return [np.float32(rng.standard_normal()), np.float32(rng.standard_normal())]
