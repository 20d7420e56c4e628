"""Doubly recursive Fibonacci; the exports are named `fib_0`, `fib_1`, ... like the specialisations of `fib` might be."""
import agc
import agc.numpy as np


def fib(n):
    if n < 2:
        return n
    return fib(n - 1) + fib(n - 2)


@agc.export(name="fib_0")
@agc.export(name="fib_1")
@agc.export(name="fib_12")
def staged_fib(n: agc.i64[()]):
    return fib(n)


def fib_vec(x, n):
    if n < 2:
        return x * n
    return fib_vec(x, n - 1) + fib_vec(x, n - 2)


@agc.export
def fib_tensor(x: agc.f32["N"], n: agc.i32[()]):
    return fib_vec(x, n)


def agc_test_inputs(export_name, rng, dims):
    if export_name == "fib_tensor":
        return [rng.standard_normal(dims["N"]).astype(np.float32), np.int32(dims["N"] + 4)]
    return [np.int64(int(export_name.split("_")[1]))]
