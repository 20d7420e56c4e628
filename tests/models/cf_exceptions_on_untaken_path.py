"""Python exceptions that staging meets on one path of a staged `if` (an index out of range, a
missing key, np.stack of an empty list, a division by zero, a failed assert, a helper that raises):
CPython raises them only where that path is taken, so the library builds and returns an error
status on that path while the other path computes; fuzzer finding F19."""
import agc
import agc.numpy as np


def last(items):
    return items[-1]


@agc.export
def index_error(x: agc.f32["B"], n: agc.i32[()]):
    if n == 0:
        empty = []
        x = x + empty[-1]
    return x * 2.0


@agc.export
def helper_raises(x: agc.f32["B"], n: agc.i32[()]):
    y = x + 1.0
    if np.sum(x) > 100.0 * n:
        y = y * last([]) - 3.0
    return y


@agc.export
def stack_of_nothing(x: agc.f32[4, 2], n: agc.i32[()]):
    out = x[0]
    if n == 0:
        parts = []
        out = np.stack(parts)
    return out


@agc.export
def key_error(x: agc.f32["B"], n: agc.i32[()]):
    table = {"a": 1.0}
    if n == 0:
        x = x * table["b"]
    return x


@agc.export
def zero_division(x: agc.f32["B"], n: agc.i32[()]):
    k = 0
    while n == 0:
        x = x / (1 // k)
        n = n + 1
    return x


@agc.export
def failed_assert(x: agc.f32["B"], n: agc.i32[()]):
    if n == 0:
        assert len(x.shape) == 2, "expected a matrix"
    return -x


def agc_test_inputs(export_name, rng, dims):
    taken = dims["B"] % 2 == 1          # the first dims set takes the raising path, the second not
    flag = np.int32(0 if taken else 1)
    if export_name == "stack_of_nothing":
        return [rng.standard_normal((4, 2)).astype(np.float32), flag]
    x = np.abs(rng.standard_normal(dims["B"])).astype(np.float32) + 1.0
    return [x, flag]


AGC_TEST_NUMPY_RAISES = True   # the first dims set takes each raising path
