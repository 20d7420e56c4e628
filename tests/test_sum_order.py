"""Float sums and means agree with numpy's to the bit: over trailing axes (and whole arrays)
numpy sums pairwise, over leading axes it adds in order, and elementwise products and sums are
rounded one at a time (no fused multiply-add). A last-bit difference is what a later comparison
(`x < np.mean(x)`) or a `cos` of a large value amplifies into a wrong result (fuzzer findings
F17, F20, F21)."""

import textwrap

import numpy as np
import pytest

import agc

MODEL = textwrap.dedent('''
    """Sums over every kind of axis set, float32 and float64."""
    import agc
    import agc.numpy as np

    @agc.export
    def whole64(x: agc.f64["A", "B", 3]):
        return np.sum(x), np.mean(x)

    @agc.export
    def trailing32(x: agc.f32["A", "B"]):
        return np.sum(x, axis=-1), np.mean(x, axis=1, keepdims=True)

    @agc.export
    def trailing_pair64(x: agc.f64[2, "A", "B"]):
        return np.sum(x, axis=(1, 2)), np.mean(x, axis=(2, 1), keepdims=True)

    @agc.export
    def leading32(x: agc.f32["A", "B"]):
        return np.sum(x, axis=0), np.mean(x, axis=0)

    @agc.export
    def middle64(x: agc.f64[3, "A", "B"]):
        return np.sum(x, axis=1)

    @agc.export
    def unit_then_trailing(x: agc.f64["A", 1, "B"]):
        return np.sum(x, axis=(0, 2))

    @agc.export
    def mul_add64(x: agc.f64["A"], y: agc.f64["A"], z: agc.f64["A"]):
        return x * y + z, np.cos(np.square(np.sum(x)) + np.sum(x))
''')

# Row lengths around numpy's thresholds: in order below 8, 8 accumulators up to 128, halves above.
SIZES = [1, 2, 7, 8, 9, 15, 16, 17, 100, 127, 128, 129, 130, 255, 256, 257, 1000, 4099]


@pytest.fixture(scope="module")
def lib(agc_bin, tmp_path_factory):
    work = tmp_path_factory.mktemp("sum_order")
    (work / "sum_order.py").write_text(MODEL)
    return agc.load(agc.build(work / "sum_order.py", work / "out"))


def values(rng, shape, dtype):
    """Mixed signs and magnitudes over six decades: rounding differences show."""
    return (rng.standard_normal(shape) * 10.0 ** rng.uniform(-3, 3, shape)).astype(dtype)


def same(got, expected):
    if isinstance(expected, tuple):
        assert isinstance(got, tuple) and len(got) == len(expected)
        for g, e in zip(got, expected):
            same(g, e)
        return
    np.testing.assert_array_equal(np.asarray(got), np.asarray(expected), strict=True)


@pytest.mark.parametrize("n", SIZES)
def test_sums_match_numpy_bit_for_bit(lib, n):
    rng = np.random.default_rng(n)
    x = values(rng, (2, n, 3), np.float64)
    same(lib.whole64(x), (np.sum(x), np.mean(x)))
    y = values(rng, (3, n), np.float32)
    same(lib.trailing32(y), (np.sum(y, axis=-1), np.mean(y, axis=1, keepdims=True)))
    yt = np.ascontiguousarray(y.T)   # what the library sees; numpy's order depends on the layout
    same(lib.leading32(yt), (np.sum(yt, axis=0), np.mean(yt, axis=0)))
    z = values(rng, (2, 3, n), np.float64)
    same(lib.trailing_pair64(z), (np.sum(z, axis=(1, 2)), np.mean(z, axis=(2, 1), keepdims=True)))
    w = values(rng, (3, n, 2), np.float64)
    same(lib.middle64(w), np.sum(w, axis=1))
    u = values(rng, (3, 1, n), np.float64)
    same(lib.unit_then_trailing(u), np.sum(u, axis=(0, 2)))


def test_mean_of_equal_values_equals_them(lib):
    # numpy's mean of n equal values is often exactly the value; so must agc's be.
    for n in (25, 50, 99, 300):
        x = np.full((2, n, 3), np.tanh(2.0) * 0.9)
        got_sum, got_mean = lib.whole64(x)
        assert got_mean == np.mean(x) and (got_mean == x[0, 0, 0]) == (np.mean(x) == x[0, 0, 0])


def test_products_and_sums_round_separately(lib):
    rng = np.random.default_rng(7)
    for n in (36, 1000):
        x, y, z = (values(rng, n, np.float64) for _ in range(3))
        same(lib.mul_add64(x, y, z), (x * y + z, np.cos(np.square(np.sum(x)) + np.sum(x))))
