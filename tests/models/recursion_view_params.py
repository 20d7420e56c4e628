"""Rows of an array passed to a staged recursion (the callee takes them as views at any offset)
and then yielded by a staged `if` beside a fresh tensor, kept across a loop, reshaped, or
assigned into. One-shot bufferization copied such a parameter into an allocation of the view's
own type, whose dynamic offset made the allocation invalid (fuzz seed 5101's program 241); the
same through a parameter that one branch returns unchanged (a `where` that folds to it) and the
other copies, passed on to the recursive call (fuzz seed 1601's program 117)."""
import agc
import agc.numpy as np


def rec_if(x, y, k):
    if k <= 0:
        return x
    if np.max(x) > 1.0:
        pass
    else:
        y = y + 0.5
    return rec_if(x * 0.5 + y, y, k - 1)


def rec_cast(x, y, k):
    if k <= 0:
        return x
    z = y.astype(np.float32) if np.max(x) > 0.0 else y * 2.0
    return rec_cast(x * 0.5 + z, y, k - 1)


def rec_while(x, y, k):
    if k <= 0:
        return x
    z = y
    i = 0
    while i < k:
        z = z * 0.5 + x
        i += 1
    return rec_while(x * 0.5 + z, y, k - 1)


def rec_reshape(x, y, k):
    if k <= 0:
        return x
    z = y.reshape(3, 1)
    if np.max(x) > 1.0:
        z = z + 1.0
    return rec_reshape(x * 0.5 + z[:, 0], y, k - 1)


def rec_set(x, y, k):
    if k <= 0:
        return x
    y[0] = np.sum(x)
    return rec_set(x * 0.5 + y, y, k - 1)


def rec_sum(x, k):
    if k <= 0:
        return x
    return rec_sum(np.sin(x), k - 1)


def same_or_copy(x):
    if np.sum(x) < 0.5:
        return np.where(x > x, x, x)
    return x


def rec_folded(x, k):
    if k <= 0:
        return x
    return rec_folded(same_or_copy(x), k - 1) * 0.5 + x


@agc.export
def folded_where_into_call(x: agc.f32[4, 3], n: agc.i32[()]):
    return rec_folded(np.min(x, axis=0), n)


@agc.export
def row_or_sum_into_call(x: agc.f32["B", 3], n: agc.i32[()]):
    v = np.sum(x, axis=0) if np.any(x > 0.5) else x[-1]
    return rec_sum(v, n)


@agc.export
def if_yields_row(x: agc.f32[4, 3], n: agc.i32[()]):
    return rec_if(x[1], x[2], n)


@agc.export
def if_yields_cast_row(x: agc.f32[4, 3], n: agc.i32[()]):
    return rec_cast(x[1], x[3], n)


@agc.export
def loop_from_row(x: agc.f32[4, 3], n: agc.i32[()]):
    return rec_while(x[1], x[2], n)


@agc.export
def reshaped_row(x: agc.f32["B", 3], n: agc.i32[()]):
    return rec_reshape(x[0], x[-1], n)


@agc.export
def assigned_row(x: agc.f32[4, 3], n: agc.i32[()]):
    return rec_set(x[1], x[2], n)


def agc_test_inputs(export_name, rng, dims):
    rows = dims["B"] if export_name in ("reshaped_row", "row_or_sum_into_call") else 4
    x = rng.standard_normal((rows, 3)).astype(np.float32)
    return [x, np.int32(rng.integers(0, 5))]
