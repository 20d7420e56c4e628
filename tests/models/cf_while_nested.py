"""A staged `while` nested in a staged `while`; the inner trip count depends on the outer state."""
import agc
import agc.numpy as np


@agc.export(name="triangle_count_b")
@agc.export
def triangle_count(n: agc.i64[()]):
    i = np.zeros((), dtype=np.int64)
    total = np.zeros((), dtype=np.int64)
    while i < n:
        j = np.zeros((), dtype=np.int64)
        while j <= i:
            total = total + j
            j = j + 1
        i = i + 1
    return total


@agc.export
def digit_sums(xs: agc.i64["K"]):
    k = 0
    out = np.zeros((), dtype=np.int64)
    while k < xs.shape[0]:
        v = np.abs(xs[k])
        while v > 0:
            out = out + v % 10
            v = v // 10
        k += 1
    return out


def agc_test_inputs(export_name, rng, dims):
    if export_name.startswith("triangle_count"):
        return [np.int64(11 if export_name == "triangle_count" else 1)]
    return [rng.integers(-100000, 100000, size=dims["K"]).astype(np.int64)]
