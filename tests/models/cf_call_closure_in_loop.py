"""Closures and lambdas that capture staged tensors, called from staged loops and branches."""
import agc
import agc.numpy as np


def make_affine(w, b):
    def apply(x):
        return x @ w + b
    return apply


@agc.export
def closures(xs: agc.f32["T", 3], w: agc.f32[3, 3], b: agc.f32[3]):
    f = make_affine(w, b)
    g = lambda v: np.maximum(v, 0.0) * 0.5  # noqa: E731
    h = np.zeros(3, dtype=np.float32)
    for t in range(xs.shape[0]):
        h = g(f(xs[t] + h)) if np.sum(xs[t]) > 0 else f(h) * 0.1
    return h


@agc.export
def pick_function(x: agc.f32["N"], k: agc.i32[()]):
    fns = [np.tanh, np.abs, lambda v: v * v]
    acc = x
    for i in range(k):
        acc = fns[1](acc) + fns[0](acc) * 0.5 - fns[2](acc) * 0.1
    return acc


def agc_test_inputs(export_name, rng, dims):
    if export_name == "pick_function":
        return [rng.standard_normal(dims["N"]).astype(np.float32), np.int32(3 if dims["N"] < 5 else 1)]
    return None
