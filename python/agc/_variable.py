"""`agc.Variable` in eager mode: a Python object holding a numpy array.

It reads as its current value in numpy expressions (operators, ufuncs, numpy
functions, indexing, `np.asarray`) and `v.assign(new)` replaces the value,
with the compiler's rules: the same shape, and the same dtype (a Python
scalar takes the variable's dtype).
"""

import numpy as np


def _value(x):
    return x.value if isinstance(x, Variable) else x


def _values(x):
    if isinstance(x, Variable):
        return x.value
    if isinstance(x, (list, tuple)):
        return type(x)(_values(i) for i in x)
    return x


class Variable(np.lib.mixins.NDArrayOperatorsMixin):
    """State an exported function reads and assigns; see CONTRACT.md section 5."""

    def __init__(self, initial, name=None):
        self.value = np.array(initial, copy=True)
        self.name = name

    def assign(self, new):
        """Replace the value with `new` (same shape and dtype)."""
        if isinstance(new, (bool, int, float)):
            new = np.asarray(new, self.value.dtype)
        new = np.asarray(_value(new))
        if new.shape != self.value.shape or new.dtype != self.value.dtype:
            raise TypeError(f"a variable of {self.value.dtype}{list(self.value.shape)} cannot be assigned "
                            f"a value of {new.dtype}{list(new.shape)}")
        self.value = np.array(new, copy=True)

    def __array__(self, dtype=None, copy=None):
        return self.value if dtype is None else self.value.astype(dtype)

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        return getattr(ufunc, method)(*_values(inputs), **{k: _values(v) for k, v in kwargs.items()})

    def __array_function__(self, func, types, args, kwargs):
        return func(*_values(args), **{k: _values(v) for k, v in kwargs.items()})

    def __getitem__(self, index):
        return self.value[_value(index)]

    def __getattr__(self, name):
        if name == "value":
            raise AttributeError(name)
        return getattr(self.value, name)

    def __len__(self):
        return len(self.value)

    def __iter__(self):
        return iter(self.value)

    def __repr__(self):
        return f"agc.Variable({self.value!r})"
