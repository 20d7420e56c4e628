"""agc.load against a hand-written library with the same C ABI (no compiler needed)."""

import ctypes
import shutil
import subprocess

import numpy as np
import pytest

import agc


@pytest.fixture(scope="module")
def fake(tmp_path_factory):
    cc = shutil.which("cc")
    assert cc, "a C compiler (cc) is needed to build the test library"
    so = tmp_path_factory.mktemp("fake") / "libfake.so"
    src = __file__.replace("test_load.py", "fake_lib.c")
    subprocess.run([cc, "-std=c11", "-shared", "-fPIC", "-O1", "-o", str(so), src], check=True)
    return agc.load(so)


def live(lib):
    fn = lib._dll.fake_live
    fn.restype = ctypes.c_int
    return fn()


def test_metadata_and_functions(fake):
    assert fake.name == "fake"
    assert fake.metadata["module"] == "fake"
    assert sorted(fake.functions) == ["scale2", "split"]
    assert fake.scale2.__doc__ == "Doubles x."
    assert "scale2(x: float32[N]) -> (float32[N])" in repr(fake.scale2)


def test_small_results_are_copies_released_at_once(fake):
    x = np.arange(5, dtype=np.float32)
    y = fake.scale2(x)
    assert y.dtype == np.float32 and y.shape == (5,)
    np.testing.assert_array_equal(y, 2 * x)
    assert live(fake) == 0, "a result of at most 64 KiB is copied and released in the call"
    y[0] = 7  # the caller owns the copy
    np.testing.assert_array_equal(fake.scale2(x), 2 * x)


def test_results_are_views_released_with_their_arrays(fake):
    import gc

    x = np.arange(20_000, dtype=np.float32)  # 80 KB: viewed, not copied
    y = fake.scale2(x)
    assert y.dtype == np.float32 and y.shape == (20_000,)
    np.testing.assert_array_equal(y, 2 * x)
    assert live(fake) == 1, "the array views the library's result without a copy"
    view = y[1:]
    del y
    gc.collect()
    assert live(fake) == 1, "a view of the array keeps the result alive"
    view[0] = 100  # the caller owns the result
    np.testing.assert_array_equal(fake.scale2(x), 2 * x)
    del view
    gc.collect()
    assert live(fake) == 0


def test_keyword_list_and_noncontiguous_inputs(fake):
    np.testing.assert_array_equal(fake.scale2(x=[1, 2, 3]), np.array([2, 4, 6], np.float32))
    strided = np.arange(10, dtype=np.float32)[::2]
    np.testing.assert_array_equal(fake.scale2(strided), 2 * strided)
    big_endian = np.arange(3, dtype=">f4")
    np.testing.assert_array_equal(fake.scale2(big_endian), np.array([0, 2, 4], np.float32))


def test_several_results_zero_d_and_strided(fake):
    x = (np.arange(6, dtype=np.float32).reshape(2, 3) - 2.5).T  # non-contiguous input
    total, cast = fake.split(x)
    assert total.shape == () and total.dtype == np.float64 and total == x.sum()
    assert cast.dtype == np.int64 and cast.shape == (3, 2)
    np.testing.assert_array_equal(cast, x.astype(np.int64))
    del total, cast
    import gc

    gc.collect()
    assert live(fake) == 0


def test_error_status_raises_with_message(fake):
    with pytest.raises(agc.Error, match=r"scale2: parameter 'x' expects"):
        fake.scale2(np.zeros(3, np.float64))  # ndarrays are passed as they are: the library checks
    with pytest.raises(agc.Error, match="rank 2"):
        fake.split(np.zeros(3, np.float32))


def test_argument_binding_errors(fake):
    with pytest.raises(TypeError, match="missing"):
        fake.scale2()
    with pytest.raises(TypeError, match="unexpected keyword"):
        fake.scale2(y=[1.0])
    with pytest.raises(TypeError, match="takes 1 arguments"):
        fake.scale2([1.0], [2.0])
    with pytest.raises(TypeError, match="multiple values"):
        fake.scale2([1.0], x=[2.0])


def test_bad_library_name(tmp_path):
    with pytest.raises(agc.Error, match="lib<NAME>.so"):
        agc.load(tmp_path / "model.so")
