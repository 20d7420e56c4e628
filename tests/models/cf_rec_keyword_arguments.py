"""Staged recursive calls with keyword arguments and defaults: keywords bind as in Python, and
calls binding the same values share one native function whatever their spelling."""
import agc
import agc.numpy as np


def shrink(x, k, scale=1.0):
    if k <= 0:
        return x
    return shrink(x * scale + 1.0, k - 1, scale=0.5)


def walk(x, k, *, bias, scale=2.0):
    if k <= 0:
        return x + bias
    return walk(x=np.tanh(x) * scale, bias=bias * 0.5, k=k - 1)


@agc.export
def keyword_in_recursion(x: agc.f32[3], k: agc.i32[()]):
    return shrink(x, k, scale=2.0)


@agc.export
def keyword_only_and_reordered(x: agc.f32["N"], k: agc.i32[()]):
    return walk(x, k, bias=x[0]) + walk(x, k - 1, scale=2.0, bias=np.float32(0.25))


def agc_test_inputs(export_name, rng, dims):
    n = dims["N"] if export_name == "keyword_only_and_reordered" else 3
    return [rng.standard_normal(n).astype(np.float32), np.int32(4)]
