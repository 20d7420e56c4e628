"""A recursive function with a staged loop in its body, and a staged loop that calls a recursive function."""
import agc
import agc.numpy as np


def nested_sum(x, depth):
    """depth levels, each a staged loop over the rows."""
    if depth <= 0:
        return np.zeros((), dtype=x.dtype)
    acc = np.zeros((), dtype=x.dtype)
    for i in range(x.shape[0]):
        acc = acc + x[i] * depth
    return acc + nested_sum(x * 0.5, depth - 1)


def digits(n):
    if n < 10:
        return n
    return n % 10 + digits(n // 10)


@agc.export
def rec_loop(x: agc.f64["N"], depth: agc.i64[()]):
    return nested_sum(x, depth)


@agc.export
def loop_rec(ns: agc.i64["K"]):
    out = []
    for k in range(ns.shape[0]):
        out.append(digits(ns[k]))
    return np.stack(out)


def agc_test_inputs(export_name, rng, dims):
    if export_name == "rec_loop":
        return [rng.standard_normal(dims["N"]), np.int64(dims["N"] - 1)]
    return [rng.integers(0, 10 ** 9, size=dims["K"]).astype(np.int64)]
