"""Array methods called on the result of a staged recursive call (`a.sum()`, `a.mean(axis=0)`),
while the recursive function's result type is still being found."""
import agc
import agc.numpy as np


def rec(x, k):
    if k <= 0:
        return x
    a = rec(x * 0.5, k - 1)
    return a + a.sum()


def rows(x, k):
    if k <= 0:
        return x
    a = rows(x * 0.5, k - 1)
    return a - a.mean(axis=0).reshape(1, -1) + a.max()


@agc.export
def method_on_recursive_result(x: agc.f32[3], n: agc.i32[()]):
    return rec(x, n)


@agc.export
def chained_methods(x: agc.f32["B", 4], n: agc.i32[()]):
    return rows(x, n)


def agc_test_inputs(export_name, rng, dims):
    b = dims.get("B", 3)
    x = rng.standard_normal(3 if export_name == "method_on_recursive_result" else (b, 4)).astype(np.float32)
    return [x, np.int32(3)]
