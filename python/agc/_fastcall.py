"""The fast path of `agc.load`'s calls: numpy arrays in, numpy arrays out, on the CPU.

A call through ctypes structures and typed prototypes spends most of its time
converting: setting `DLTensor` fields, `arr.ctypes.data`, checking argument
types, building a numpy view that owns the result. Here each thread keeps its
argument tensors as raw memory written through int64 views, the library
function is called through an all-`void*` prototype with integer addresses,
and a small result is copied into a fresh array and released at once (a large
one is still viewed without a copy, by `_loader._adopt`).

`Function.__call__` takes this path when every argument is a C-contiguous,
aligned numpy array of the parameter's dtype and rank at most the declared
one; anything else goes the general way.
"""

import ctypes
import math
import struct
import threading

import numpy as np

# Results up to this many bytes are copied and released at once; larger ones
# are viewed in place and released when the array dies.
COPY_MAX_BYTES = 1 << 16

# DLTensor as 6 int64 words: data, device, ndim | dtype << 32, shape, strides, byte_offset.
_WORDS = 6

_DTYPE_WORDS = {}
_RESULT_DTYPES = {}


def dtype_word(dtype, ndim):
    """Word 2 of a DLTensor: `ndim` and the DLPack dtype of numpy `dtype`."""
    word = _DTYPE_WORDS.get(dtype)
    if word is None:
        from ._loader import dl_dtype

        dl = dl_dtype(dtype)
        word = _DTYPE_WORDS[dtype] = (dl.code | dl.bits << 8 | dl.lanes << 16) << 32
    return word | ndim


def result_dtype(word):
    """The numpy dtype of word 2 of a result DLTensor (None: not one numpy reads)."""
    key = word >> 32
    dtype = _RESULT_DTYPES.get(key)
    if dtype is None:
        from ._loader import DLDataType, np_dtype

        try:
            dtype = np_dtype(DLDataType(key & 0xFF, (key >> 8) & 0xFF, (key >> 16) & 0xFFFF))
        except Exception:  # an unsupported code: the general path reports it
            return None
        _RESULT_DTYPES[key] = dtype
    return dtype


def address(arr):
    """The data address of numpy array `arr` (C-contiguous): through the buffer
    protocol where it is writable and non-empty (a quarter of the time of
    `arr.ctypes.data`), else through `arr.ctypes`."""
    try:
        return ctypes.addressof(ctypes.c_char.from_buffer(arr))
    except (TypeError, ValueError):
        return arr.ctypes.data


class Scratch(threading.local):
    """One thread's argument tensors (raw memory), shape buffers and result slots
    for one function, and the integer arguments of its call."""

    def __init__(self, ranks, nresults, device_type):
        super().__init__()
        self.words, self.shapes = [], []
        for rank in ranks:
            words = (ctypes.c_int64 * _WORDS)()
            shape = (ctypes.c_int64 * max(rank, 1))()
            words[1] = device_type  # device_id 0
            words[3] = ctypes.addressof(shape)
            self.words.append(words)
            self.shapes.append(shape)
        self.outs = (ctypes.c_void_p * max(nresults, 1))()
        base = ctypes.addressof(self.outs)
        self.args = [ctypes.addressof(w) for w in self.words] + [base + 8 * i for i in range(nresults)]


def fill(scratch, arrays):
    """Points the thread's argument tensors at `arrays` (checked by the caller)."""
    words_of = _DTYPE_WORDS
    for words, shape, arr in zip(scratch.words, scratch.shapes, arrays):
        words[0] = address(arr)
        word = words_of.get(arr.dtype)
        if word is None:
            word = dtype_word(arr.dtype, 0)
        words[2] = word | arr.ndim
        for k, n in enumerate(arr.shape):
            shape[k] = n


def take_results(scratch, nresults, release, host_device, adopt):
    """The results in the thread's slots as numpy arrays (see the module doc);
    `adopt(address)` makes one of a layout or size this path leaves alone."""
    out = []
    slots = scratch.outs
    try:
        for i in range(nresults):
            p = slots[i]
            out.append(_take_one(p, release, host_device, adopt))
            slots[i] = None
    finally:
        for i in range(len(out), nresults):
            if slots[i]:
                release(slots[i])
                slots[i] = None
    return out


_HEADER = struct.Struct(f"{_WORDS}q")
_HEADER_BYTES = ctypes.c_char * _HEADER.size
_SIZES = {}


def _words(address, n):
    """`n` int64 words at `address`."""
    fmt = _SIZES.get(n)
    if fmt is None:
        fmt = _SIZES[n] = (struct.Struct(f"{n}q"), ctypes.c_char * (8 * n))
    return fmt[0].unpack_from(fmt[1].from_address(address))


def _take_one(p, release, host_device, adopt):
    if not p:
        return adopt(p)
    data, device, word, shape_ptr, strides_ptr, offset = _HEADER.unpack_from(
        _HEADER_BYTES.from_address(p))
    ndim = word & 0xFFFFFFFF
    dtype = _RESULT_DTYPES.get(word >> 32) or result_dtype(word)
    if dtype is None or (device & 0xFFFFFFFF) != host_device or ndim > 64:
        return adopt(p)
    shape = _words(shape_ptr, ndim) if ndim else ()
    if strides_ptr and ndim and not _compact(shape, _words(strides_ptr, ndim)):
        return adopt(p)
    nbytes = math.prod(shape) * dtype.itemsize
    if nbytes > COPY_MAX_BYTES:
        return adopt(p)
    arr = np.empty(shape, dtype)
    if nbytes:
        if not data:
            return adopt(p)
        ctypes.memmove(address(arr), data + offset, nbytes)
    release(p)
    return arr


def _compact(shape, strides):
    """Whether element `strides` are the row-major ones of `shape` (size-1 axes any)."""
    step = 1
    for n, st in zip(reversed(shape), reversed(strides)):
        if n != 1 and st != step:
            return False
        step *= n
    return True
