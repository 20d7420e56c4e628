"""Long straight-line code: compile-time loops unroll into thousands of ops, which the middle end
cuts into functions of about 512 ops (`outline-long-regions`) so that the build time stays linear
in the length of the code. Values cross the cuts: the sum `s`, the weights `w`, the state of a
staged loop whose body is itself long."""
import agc
import numpy as np


@agc.export
def unrolled(x: agc.f32["N", "M"], w: agc.f32["M", "M"]):
    s = np.sum(x) * 1e-3
    a = x
    for i in range(900):
        if i % 60 == 0:
            a = np.tanh(a @ w * 0.1)
        else:
            a = a * 0.5 + x * ((i % 7) * 0.01) - s
    return a, s


@agc.export
def long_loop_body(x: agc.f32["N"], n: agc.i64[()]):
    t = x
    i = 0
    while i < n:
        for k in range(1200):
            t = t * 0.999 + k * 1e-4
        i += 1
    return t


def agc_test_inputs(export_name, rng, dims):
    if export_name == "long_loop_body":
        return [rng.standard_normal(dims["N"]).astype(np.float32), np.array(3)]
    return None
