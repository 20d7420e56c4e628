"""Arrays sized by run-time integers: np.zeros/ones/full/empty(n) and np.arange(n) with a staged n
(one symbolic dim per value, so zeros(n) + arange(n) broadcast), np.arange with staged bounds and
steps, and np.linspace with staged bounds, a staged num, endpoint/retstep/dtype; a negative size
is numpy's ValueError (an error status)."""
import agc
import agc.numpy as np

AGC_TEST_NUMPY_RAISES = True  # one export's inputs make numpy raise: the library must return an error status


@agc.export
def sized_by_value(x: agc.f32["N", 3], n: agc.i64[()], m: agc.i32[()]):
    z = np.zeros(n)
    a = np.arange(n)
    f = np.full(n, 2.5)
    o = np.ones((n, 3), np.float32) * x[0]
    e = np.zeros((x.shape[0], m), dtype=np.int32)
    return z + a, f * a, o, e, np.empty(m).shape[0] + 0 * a, np.zeros(x.shape[0] * 2), np.full_like(x, 7)


@agc.export
def staged_ranges(a: agc.i64[()], b: agc.i64[()], s: agc.f64[()], k: agc.i32[()]):
    return (
        np.arange(a, b),
        np.arange(a, b, 2),
        np.arange(s),
        np.arange(0.5, s, 0.25),
        np.arange(b, a, -1),
        np.arange(k, 10, 3),
        np.arange(a, b, dtype=np.float32),
    )


@agc.export
def staged_linspace(a: agc.f32[()], b: agc.f32[()], n: agc.i64[()], v: agc.f64[3]):
    return (
        np.linspace(a, b, 5),
        np.linspace(0.0, b, 4, endpoint=False),
        np.linspace(a, 3.0, n),
        np.linspace(v, v * 2, 4),
        np.linspace(a, b, 1),
        np.linspace(a, b, 6, retstep=True),
        np.linspace(a * 10, b * 10, 5, dtype=np.int32),
        np.linspace(0, 1, 5),
        np.linspace(0, 10, 4, retstep=True),
        np.linspace(-3, 3, 4, dtype=np.int64),
    )


@agc.export
def sizes_in_loops(x: agc.f32["N", 3]):
    rows = []
    for t in range(x.shape[0]):
        rows.append(x[t])
    counted = np.zeros(len(rows)) + np.arange(len(rows))
    half = np.ones(x.shape[0] // 2)
    acc = 0.0
    for t in range(x.shape[0]):
        # arrays of a different run-time size in each iteration
        acc = acc + np.sum(np.arange(t) * x[t, 0]) + np.sum(np.zeros((t, 2)) + 1)
    return counted, half, acc


@agc.export
def negative_size(n: agc.i64[()]):
    return np.zeros((2, n))


def agc_test_inputs(name, rng, dims):
    if name == "sized_by_value":
        return [rng.standard_normal((dims["N"], 3)).astype(np.float32), np.int64(dims["N"] + 1), np.int32(2)]
    if name == "staged_ranges":
        return [np.int64(2), np.int64(9), np.float64(3.3), np.int32(-2)]
    if name == "staged_linspace":
        return [np.float32(-1.5), np.float32(2.0), np.int64(rng.integers(0, 4)), rng.standard_normal(3)]
    if name == "negative_size":
        return [np.int64(-1)]
    return None
