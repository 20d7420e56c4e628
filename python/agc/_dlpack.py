"""DLPack exchange for `--target cuda` libraries, without copies.

- An argument that is a DLPack producer on the GPU (`__dlpack_device__()` is
  kDLCUDA: a CuPy array, a PyTorch CUDA tensor, a `DeviceTensor`) is passed as
  its own `DLTensor`, borrowed from its capsule for the call ([`borrow`]).
- A result comes back as a `DeviceTensor`: it owns the library's tensor
  (released when it dies) and exports it through `__dlpack__` to any consumer
  (`torch.from_dlpack`, `cupy.from_dlpack`); the consumer's deleter releases it.
"""

import ctypes
import functools

import numpy as np

from ._errors import Error

KDL_CUDA = 2

_capsule_new = ctypes.pythonapi.PyCapsule_New
_capsule_new.restype = ctypes.py_object
_capsule_new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
_capsule_pointer = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.py_object, ctypes.c_char_p)(
    ("PyCapsule_GetPointer", ctypes.pythonapi))
_capsule_valid_raw = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_char_p)(
    ("PyCapsule_IsValid", ctypes.pythonapi))
_capsule_pointer_raw = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p)(
    ("PyCapsule_GetPointer", ctypes.pythonapi))

_NAME = b"dltensor"


def on_gpu(value):
    """Whether `value` is a DLPack producer whose data is on a CUDA device."""
    if isinstance(value, np.ndarray) or not hasattr(value, "__dlpack_device__"):
        return False
    try:
        return int(value.__dlpack_device__()[0]) == KDL_CUDA
    except Exception:  # not a DLPack producer after all
        return False


def borrow(value, tensor_type):
    """(capsule, pointer to its `DLTensor`) of a GPU DLPack producer; the
    capsule must be kept alive for the call (its destructor frees the tensor)."""
    try:
        capsule = value.__dlpack__(stream=None)
    except TypeError:
        capsule = value.__dlpack__()
    address = _capsule_pointer(capsule, _NAME)
    if not address:
        raise Error("the argument's __dlpack__ returned no DLTensor")
    # A DLManagedTensor starts with its DLTensor.
    return capsule, ctypes.cast(address, ctypes.POINTER(tensor_type))


@functools.cache
def _managed_type(tensor_type):
    """DLPack's `DLManagedTensor` around `tensor_type` (the loader's `DLTensor`)."""
    class DLManagedTensor(ctypes.Structure):
        _fields_ = [("dl_tensor", tensor_type), ("manager_ctx", ctypes.c_void_p), ("deleter", ctypes.c_void_p)]
    return DLManagedTensor


# Exported tensors alive in a consumer: address of the DLManagedTensor -> (struct, owner).
_exported = {}
_DELETER = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
_DESTRUCTOR = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


@_DELETER
def _delete(managed):
    """The DLManagedTensor deleter: the consumer is done (drops the owner's reference)."""
    _exported.pop(managed, None)


@_DESTRUCTOR
def _destroy_capsule(capsule):
    """A capsule that no consumer took (still named "dltensor") deletes its tensor."""
    if _capsule_valid_raw(capsule, _NAME):
        managed = _capsule_pointer_raw(capsule, _NAME)
        if managed:
            _exported.pop(managed, None)


class DeviceTensor:
    """A result of a `--target cuda` library: a tensor on the GPU, exported
    without a copy through the DLPack protocol (`torch.from_dlpack(t)`,
    `cupy.from_dlpack(t)`) and passed back into agc functions as it is.
    The library's tensor is released once this object and every consumer are
    done with it."""

    def __init__(self, ptr, release, tensor_type, dtype):
        """`ptr`: the library's tensor (a `POINTER(tensor_type)`), freed by `release`;
        `dtype`: its numpy dtype."""
        self._ptr, self._release, self._type = ptr, release, tensor_type
        t = ptr.contents
        self.shape = tuple(t.shape[: t.ndim])
        self.dtype = dtype
        self.device_id = t.device.device_id

    def __dlpack_device__(self):
        return (KDL_CUDA, self.device_id)

    def __dlpack__(self, stream=None, max_version=None, dl_device=None, copy=None):
        if copy:
            raise BufferError("agc's DeviceTensor exports its data without copies only")
        managed_type = _managed_type(self._type)
        managed = managed_type()
        ctypes.memmove(ctypes.byref(managed.dl_tensor), self._ptr, ctypes.sizeof(self._type))
        managed.deleter = ctypes.cast(_delete, ctypes.c_void_p).value
        address = ctypes.addressof(managed)
        _exported[address] = (managed, self)
        return _capsule_new(address, _NAME, ctypes.cast(_destroy_capsule, ctypes.c_void_p).value)

    def __repr__(self):
        return f"<agc.DeviceTensor {self.dtype}{list(self.shape)} on cuda:{self.device_id}>"

    def __del__(self):
        if self._ptr:
            self._release(self._ptr)
            self._ptr = None
