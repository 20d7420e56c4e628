"""Tensor specs: agc.f32["B", 784] and friends."""

import numpy as np
import pytest

import agc


@pytest.mark.parametrize("dt, np_dtype", [(agc.f32, np.float32), (agc.f64, np.float64), (agc.i32, np.int32),
                                          (agc.i64, np.int64), (agc.bool_, np.bool_)])
def test_dtypes(dt, np_dtype):
    spec = dt[2, "N"]
    assert spec.dtype == np.dtype(np_dtype)
    assert dt.dtype == np.dtype(np_dtype)
    assert spec.shape == (2, "N")


def test_shapes():
    assert agc.f32["B", 784].shape == ("B", 784)
    assert agc.f32[()].shape == () and agc.f32[()].ndim == 0
    assert agc.f32[3].shape == (3,)
    assert agc.f32["T"].shape == ("T",)
    assert agc.i64[np.int64(4), 2].shape == (4, 2)
    assert type(agc.i64[np.int64(4)].shape[0]) is int


def test_symbols_and_concrete_shape():
    spec = agc.f32["B", 3, "T", "B"]
    assert spec.symbols == ("B", "T")
    assert spec.concrete_shape({"B": 5, "T": 2}) == (5, 3, 2, 5)


def test_equality_and_repr():
    assert agc.f32["B", 3] == agc.f32["B", 3]
    assert agc.f32["B", 3] != agc.f64["B", 3]
    assert agc.f32[3] != agc.f32[4]
    assert len({agc.f32[3], agc.f32[3]}) == 1
    assert repr(agc.f32["B", 784]) == "agc.f32['B', 784]"
    assert repr(agc.bool_[()]) == "agc.bool_[()]"
    assert repr(agc.i32) == "agc.i32"


@pytest.mark.parametrize("bad, error", [(-1, ValueError), (2.5, TypeError), (True, TypeError), ("", ValueError),
                                        (None, TypeError)])
def test_bad_dims(bad, error):
    with pytest.raises(error):
        agc.f32[bad]
