"""Staged `if` without `else`: the variable keeps its old value when the condition is false."""
import agc
import agc.numpy as np


@agc.export
def clip_if_large(x: agc.f32["N"], limit: agc.f32[()]):
    y = x
    if np.max(np.abs(y)) > limit:
        y = y / np.max(np.abs(y)) * limit
    return y


@agc.export(name="count_updates_neither")
@agc.export(name="count_updates_both")
@agc.export(name="count_updates_first")
def count_updates(a: agc.i32[()], b: agc.i32[()]):
    n = np.zeros((), dtype=np.int32)
    total = a
    if a > b:
        total = total - b
        n = n + 1
    if a < 0:
        total = -total
        n = n + 1
    return total, n


def agc_test_inputs(export_name, rng, dims):
    if export_name == "clip_if_large":
        x = (rng.standard_normal(dims["N"]) * 3).astype(np.float32)
        limit = np.float32(0.5 if dims["N"] % 2 else 100.0)
        return [x, limit]
    a, b = {"count_updates_neither": (1, 5), "count_updates_both": (-2, -7), "count_updates_first": (6, 2)}[export_name]
    return [np.int32(a), np.int32(b)]


AGC_TEST_DIMS = {"N": 7}
