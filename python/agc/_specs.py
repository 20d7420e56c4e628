"""Tensor specs: `agc.f32["B", 784]` annotates an exported parameter.

A `DType` (`agc.f32`, `agc.f64`, `agc.i32`, `agc.i64`, `agc.bool_`) is
subscripted with dims to give a `TensorSpec`. A dim is a non-negative int
(static) or a string (symbolic: the same name is the same size across the
parameters of one export). `agc.f32[()]` is a scalar.
"""

import numbers

import numpy as np


class TensorSpec:
    """The dtype (a `numpy.dtype`) and shape (a tuple of ints and strings) of a parameter."""

    __slots__ = ("dtype", "shape", "_dtype_name")

    def __init__(self, dtype, shape, dtype_name=None):
        self.dtype = np.dtype(dtype)
        self.shape = tuple(_check_dim(d) for d in shape)
        self._dtype_name = dtype_name or _SHORT_NAMES.get(self.dtype, str(self.dtype))

    @property
    def ndim(self):
        return len(self.shape)

    @property
    def symbols(self):
        """The symbolic dim names, in order of first appearance."""
        return tuple(dict.fromkeys(d for d in self.shape if isinstance(d, str)))

    def concrete_shape(self, dims):
        """The shape with each symbolic dim replaced by `dims[name]`."""
        return tuple(dims[d] if isinstance(d, str) else d for d in self.shape)

    def __eq__(self, other):
        return isinstance(other, TensorSpec) and (self.dtype, self.shape) == (other.dtype, other.shape)

    def __hash__(self):
        return hash((self.dtype, self.shape))

    def __repr__(self):
        if not self.shape:
            return f"agc.{self._dtype_name}[()]"
        return f"agc.{self._dtype_name}[{', '.join(repr(d) for d in self.shape)}]"


class DType:
    """A dtype that, subscripted with dims, gives a `TensorSpec`."""

    __slots__ = ("name", "dtype")

    def __init__(self, name, dtype):
        self.name = name
        self.dtype = np.dtype(dtype)

    def __getitem__(self, dims):
        if not isinstance(dims, tuple):
            dims = (dims,)
        return TensorSpec(self.dtype, dims, self.name)

    def __eq__(self, other):
        return isinstance(other, DType) and self.dtype == other.dtype

    def __hash__(self):
        return hash(self.dtype)

    def __repr__(self):
        return f"agc.{self.name}"


def _check_dim(d):
    if isinstance(d, str):
        if not d:
            raise ValueError("a symbolic dim needs a non-empty name")
        return d
    if isinstance(d, (bool, np.bool_)) or not isinstance(d, numbers.Integral):
        raise TypeError(f"a dim is an int or a string, not {d!r}")
    if d < 0:
        raise ValueError(f"a static dim must be non-negative, not {d}")
    return int(d)


f32 = DType("f32", np.float32)
f64 = DType("f64", np.float64)
i32 = DType("i32", np.int32)
i64 = DType("i64", np.int64)
bool_ = DType("bool_", np.bool_)

_SHORT_NAMES = {t.dtype: t.name for t in (f32, f64, i32, i64, bool_)}
