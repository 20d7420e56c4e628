"""`for i in range(n)` with `n` an `agc.i64[()]` / `agc.i32[()]` parameter; the index is used as a number."""
import agc
import agc.numpy as np


@agc.export(name="sum_squares_b")
@agc.export
def sum_squares(n: agc.i64[()]):
    total = 0
    for i in range(n):
        total += i * i
    return np.asarray(total)


@agc.export(name="decay_b")
@agc.export
def decay(x: agc.f32[4], n: agc.i32[()]):
    for i in range(n):
        x = x * 0.9 + 0.01 * i
    return x


@agc.export
def fib(n: agc.i64[()]):
    a = np.zeros((), dtype=np.int64)
    b = np.ones((), dtype=np.int64)
    for _ in range(n):
        a, b = b, a + b
    return a


_N = {"sum_squares": 17, "sum_squares_b": 0, "decay": 9, "decay_b": 1, "fib": 40}


def agc_test_inputs(export_name, rng, dims):
    n = _N[export_name]
    if export_name.startswith("decay"):
        return [rng.standard_normal(4).astype(np.float32), np.int32(n)]
    return [np.int64(n)]
