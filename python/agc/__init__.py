"""agc: an ahead-of-time compiler from numpy-style Python to native libraries.

Under CPython this package is the model's eager mode:

- `agc.export` marks entry points (and binds compile-time keyword arguments),
- `agc.f32`, `agc.f64`, `agc.i32`, `agc.i64`, `agc.bool_` give parameter specs
  (`agc.f32["B", 784]`),
- `agc.numpy` is numpy, `agc.grad` / `agc.value_and_grad` differentiate with autograd,
- `agc.weights(path)` reads a safetensors or npz file into numpy arrays,
- `agc.Variable(initial)` is state: a numpy array exports read and `assign`.

`agc.build(model)` runs the compiler and `agc.load(lib)` calls the result.
"""

from . import numpy
from ._build import build, find_binary
from ._errors import Error
from ._export import Export, ExportedFunction, export, exports_of
from ._grad import grad, value_and_grad
from ._dlpack import DeviceTensor
from ._loader import Library, load
from ._specs import DType, TensorSpec, bool_, f32, f64, i32, i64
from ._variable import Variable
from ._weights import weights

__all__ = [
    "DType", "DeviceTensor", "Error", "Export", "ExportedFunction", "Library", "TensorSpec", "Variable",
    "bool_", "build", "export", "exports_of", "f32", "f64", "find_binary",
    "grad", "i32", "i64", "load", "numpy", "value_and_grad", "weights",
]
