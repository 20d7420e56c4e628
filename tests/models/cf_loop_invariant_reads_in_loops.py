"""Values computed inside a staged loop that do not change with it (hoisted out of the loop by
the compiler), read through a runtime call inside it: a float sum (numpy's pairwise order), a
matmul (the runtime's GEMM), a staged recursive call. The loop's other tensors are updated in
place; the reads must still see the hoisted value, not a buffer the loop has since overwritten
(fuzzer seed 4008, program 211: the sum of zeros read the loop's `v2`)."""
import agc
import agc.numpy as np


@agc.export
def sum_in_loop_with_break(x0: agc.f64["B", "B"], x1: agc.f64["B"]):
    v1 = x0 + -1.0
    v2 = v1
    for i in range(v2.shape[0]):
        v2 = v2 + 0.1
        if np.sum(np.zeros((x0.shape[0], x0.shape[0]))) < -0.5:
            break
    return np.maximum(0.0, x1) + 0.1 * np.mean(v2)


@agc.export
def sum_accumulated_in_loop(x0: agc.f64["B", "B"]):
    v = x0 + -1.0
    t = np.zeros(())
    for i in range(v.shape[0]):
        v = v + 0.1
        t = t + np.sum(np.ones((x0.shape[0], x0.shape[0])) * 0.25)
    return v, t


@agc.export
def matmul_in_loop(x: agc.f32["B", 16], n: agc.i32[()]):
    h = x * 0.5
    acc = np.zeros((x.shape[0], 16), dtype=np.float32)
    for i in range(n):
        h = h + 1.0
        w = np.ones((16, 16), dtype=np.float32) * 0.125
        acc = acc + (np.ones((x.shape[0], 16), dtype=np.float32) @ w)
    return h, acc


def _depth(v, k):
    if k <= 0:
        return v
    return _depth(v * 0.5, k - 1)


@agc.export
def call_in_loop(x: agc.f64["B"], n: agc.i32[()]):
    h = x + 1.0
    acc = np.zeros(x.shape[0])
    for i in range(n):
        h = h * 2.0
        acc = acc + _depth(np.ones(x.shape[0]) * 3.0, n)
    return h, acc


def agc_test_inputs(export_name, rng, dims):
    b = dims["B"]
    if export_name == "sum_in_loop_with_break":
        return [rng.standard_normal((b, b)), rng.standard_normal(b)]
    if export_name == "sum_accumulated_in_loop":
        return [rng.standard_normal((b, b))]
    if export_name == "matmul_in_loop":
        return [rng.standard_normal((b, 16)).astype(np.float32), np.int32(5)]
    return [rng.standard_normal(b), np.int32(4)]
