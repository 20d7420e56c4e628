"""`agc.weights(path)` in eager mode: the tensors of a safetensors or npz file as numpy arrays.

The path is relative to the file of the module that calls it (the model file), as
in a build. Nothing in the file is executed: npz files are read with
`allow_pickle=False`, safetensors headers are JSON.
"""

import json
import os
import sys

import numpy as np

_SAFETENSORS_DTYPES = {
    "F32": np.float32, "F64": np.float64, "I32": np.int32, "I64": np.int64, "BOOL": np.bool_,
}
_NUMPY_DTYPES = tuple(np.dtype(t) for t in _SAFETENSORS_DTYPES.values())


def weights(path):
    """{name: ndarray} of the safetensors or npz file at `path` (relative to the calling module's file)."""
    caller = sys._getframe(1).f_globals.get("__file__")
    full = os.path.join(os.path.dirname(os.path.abspath(caller)), path) if caller else path
    lower = full.lower()
    if lower.endswith(".safetensors"):
        return _read_safetensors(full)
    if lower.endswith(".npz"):
        return _read_npz(full)
    raise ValueError(f"agc.weights: '{full}' is neither a .safetensors nor an .npz file")


def _read_safetensors(path):
    with open(path, "rb") as f:
        data = f.read()
    n = int.from_bytes(data[:8], "little")
    header = json.loads(data[8:8 + n])
    header.pop("__metadata__", None)
    start = 8 + n
    out = {}
    for name, info in sorted(header.items(), key=lambda kv: kv[1]["data_offsets"][0]):
        dtype = _SAFETENSORS_DTYPES.get(info["dtype"])
        if dtype is None:
            raise ValueError(f"agc.weights: tensor '{name}' of '{path}' has dtype {info['dtype']}; "
                             "agc supports float32, float64, int32, int64 and bool")
        lo, hi = info["data_offsets"]
        array = np.frombuffer(data[start + lo:start + hi], dtype=dtype).reshape(info["shape"])
        out[name] = array.copy()
    return out


def _read_npz(path):
    out = {}
    with np.load(path, allow_pickle=False) as archive:
        for name in archive.files:
            array = archive[name]
            if array.dtype not in _NUMPY_DTYPES:
                raise ValueError(f"agc.weights: tensor '{name}' of '{path}' has dtype {array.dtype}; "
                                 "agc supports float32, float64, int32, int64 and bool")
            out[name] = np.ascontiguousarray(array.astype(array.dtype.newbyteorder("=")))
    return out
