"""Doubly recursive Fibonacci on a staged counter (two re-entrant calls per level), one export per input."""
import agc
import agc.numpy as np


def fibonacci(n):
    if n < 2:
        return n
    return fibonacci(n - 1) + fibonacci(n - 2)


@agc.export(name="small")
@agc.export(name="medium")
def staged_fibonacci(n: agc.i64[()]):
    return fibonacci(n)


def agc_test_inputs(export_name, rng, dims):
    return [np.int64(1 if export_name == "small" else 14)]
