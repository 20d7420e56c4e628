"""`agc.load`: call a compiled library through ctypes and its C ABI.

The library `lib<NAME>.so` exports, per function in `<NAME>_metadata()`,
`int fn(const DLTensor* param..., DLTensor** result...)`, plus
`<NAME>_last_error()` and `<NAME>_release(DLTensor*)`. Inputs are passed as
C-contiguous arrays (strides NULL); results are copied into numpy arrays and
released at once.

A library with external weights or variables (metadata `"context"`) has a
context: `agc.load` creates one with `<NAME>_create` (mapping
`<NAME>.weights` next to the library, or the file `weights=` names), passes
it to every call, and destroys it when the `Library` is collected or closed.
"""

import ctypes
import json
import math
import re
import threading
import weakref
from pathlib import Path

import numpy as np

from . import _dlpack, _fastcall
from ._errors import Error

KDL_CPU = 1
KDL_CUDA = _dlpack.KDL_CUDA


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("device", DLDevice),
        ("ndim", ctypes.c_int32),
        ("dtype", DLDataType),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("strides", ctypes.POINTER(ctypes.c_int64)),
        ("byte_offset", ctypes.c_uint64),
    ]


# DLPack type codes by numpy dtype kind.
_CODE_OF_KIND = {"i": 0, "u": 1, "f": 2, "c": 5, "b": 6}
_KIND_OF_CODE = {code: kind for kind, code in _CODE_OF_KIND.items()}


def dl_dtype(dtype):
    """The `DLDataType` of a numpy dtype."""
    code = _CODE_OF_KIND.get(dtype.kind)
    if code is None:
        raise Error(f"dtype {dtype} has no DLPack equivalent")
    return DLDataType(code, dtype.itemsize * 8, 1)


_NP_DTYPES = {}


def np_dtype(dl):
    """The numpy dtype of a `DLDataType`."""
    key = (dl.code, dl.bits, dl.lanes)
    dtype = _NP_DTYPES.get(key)
    if dtype is None:
        dtype = _NP_DTYPES[key] = _np_dtype(dl)
    return dtype


def _np_dtype(dl):
    kind = _KIND_OF_CODE.get(dl.code)
    if kind is None or dl.lanes != 1 or dl.bits % 8:
        raise Error(f"unsupported result dtype (code={dl.code}, bits={dl.bits}, lanes={dl.lanes})")
    return np.dtype(f"{kind}{dl.bits // 8}") if kind != "b" else np.dtype(np.bool_)


class Function:
    """One exported function of a loaded library; call it with numpy arrays."""

    def __init__(self, library, meta):
        self._library = library
        self.meta = meta
        self.__name__ = meta["name"]
        self.__doc__ = meta.get("doc") or None
        self.params = meta["params"]
        self.results = meta["results"]
        self._param_dtypes = [np.dtype(p["dtype"]) for p in self.params]
        # The C symbol is <NAME>_<name>; libraries built before agc prefixed
        # export symbols name it like the export.
        cfn = getattr(library._dll, meta.get("symbol", self.__name__))
        cfn.restype = ctypes.c_int
        context = [ctypes.c_void_p] if library.has_context else []
        cfn.argtypes = context + [ctypes.POINTER(DLTensor)] * len(self.params) + [
            ctypes.POINTER(ctypes.POINTER(DLTensor))
        ] * len(self.results)
        self._cfn = cfn
        ranks = [len(p["shape"]) for p in self.params]
        self._scratch = _CallScratch(ranks, len(self.results), library._device_type)
        # The fast path (`_fastcall`): an all-`void*` prototype of the same function.
        self._fast = not library._on_gpu and library._results == "numpy"
        self._ranks = ranks
        if self._fast:
            address = ctypes.cast(cfn, ctypes.c_void_p).value
            self._raw = ctypes.CFUNCTYPE(ctypes.c_int, *[ctypes.c_void_p] * len(cfn.argtypes))(address)
            self._fast_scratch = _fastcall.Scratch(ranks, len(self.results), library._device_type)

    def __call__(self, *args, **kwargs):
        if self._fast:
            arrays = self._bind(args, kwargs)
            for a, dt, rank in zip(arrays, self._param_dtypes, self._ranks):
                if type(a) is not np.ndarray or a.dtype != dt or a.ndim > rank or not (
                        a.flags.c_contiguous and a.flags.aligned):
                    break
            else:
                return self._fast_call(arrays)
        library, scratch = self._library, self._scratch
        # What the call's tensors point into (arrays, borrowed capsules) lives until it returns.
        call_args, alive = scratch.args, []
        for i, (a, dt) in enumerate(zip(self._bind(args, kwargs), self._param_dtypes)):
            if library._on_gpu and _dlpack.on_gpu(a):
                # A GPU array's own DLTensor, borrowed for the call.
                capsule, ptr = _dlpack.borrow(a, DLTensor)
                alive.append(capsule)
                call_args = call_args[:i] + (ptr,) + call_args[i + 1:]
            else:
                arr = _as_input(a, dt)
                alive.append(arr)
                _fill_input(scratch.tensors[i], scratch.shapes[i], arr)
        if library.has_context:
            status = self._cfn(library._context(), *call_args)
        else:
            status = self._cfn(*call_args)
        del alive
        outs = scratch.outs
        if status != 0:
            msg = self._library.last_error() or f"{self.__name__} failed with status {status}"
            raise Error(msg, status)
        results, release = [], self._library._release
        try:
            for o in outs:
                if self._library._results == "dlpack":
                    t = _take(o)
                    results.append(_dlpack.DeviceTensor(t, release, DLTensor, np_dtype(t.contents.dtype)))
                else:
                    results.append(_adopt(o, release, self._library._device_type))
        finally:
            for o in outs[len(results):]:
                if o:
                    release(o)
        return results[0] if len(results) == 1 else tuple(results)

    def _fast_call(self, arrays):
        """The call by `_fastcall` with checked arrays."""
        library, scratch = self._library, self._fast_scratch
        _fastcall.fill(scratch, arrays)
        if library.has_context:
            status = self._raw(library._context().value, *scratch.args)
        else:
            status = self._raw(*scratch.args)
        if status != 0:
            msg = library.last_error() or f"{self.__name__} failed with status {status}"
            raise Error(msg, status)
        results = _fastcall.take_results(
            scratch, len(self.results), library._release_raw, library._device_type, self._adopt)
        return results[0] if len(results) == 1 else tuple(results)

    def _adopt(self, p):
        """A result at address `p` as `_adopt` makes it (the fast path's fallback)."""
        library = self._library
        return _adopt(ctypes.cast(p, ctypes.POINTER(DLTensor)), library._release, library._device_type)

    def _bind(self, args, kwargs):
        if not kwargs and len(args) == len(self.params):
            return args
        names = [p["name"] for p in self.params]
        if len(args) > len(names):
            raise TypeError(f"{self.__name__}() takes {len(names)} arguments but {len(args)} were given")
        bound = dict(zip(names, args))
        for key, value in kwargs.items():
            if key not in names:
                raise TypeError(f"{self.__name__}() got an unexpected keyword argument {key!r}")
            if key in bound:
                raise TypeError(f"{self.__name__}() got multiple values for argument {key!r}")
            bound[key] = value
        missing = [n for n in names if n not in bound]
        if missing:
            raise TypeError(f"{self.__name__}() missing arguments: {', '.join(missing)}")
        return [bound[n] for n in names]

    def __repr__(self):
        def sig(entry):
            return f"{entry['dtype']}[{', '.join(str(d) for d in entry['shape'])}]"

        params = ", ".join(f"{p['name']}: {sig(p)}" for p in self.params)
        results = ", ".join(sig(r) for r in self.results)
        return f"<agc function {self.__name__}({params}) -> ({results})>"


class Library:
    """A loaded `lib<NAME>.so`: one attribute per exported function, plus `metadata`.

    `weights` is the weights file of a library built with `--weights external`
    (default: `<NAME>.weights` next to the library).

    `results`: "numpy" (arrays, the default for the CPU) or "dlpack"
    (`DeviceTensor`s, the default for `--target cuda`: GPU tensors that
    `torch.from_dlpack`/`cupy.from_dlpack` take without a copy). A CUDA
    library also takes GPU arrays (any `__dlpack__` producer on kDLCUDA)
    as arguments, without a copy."""

    def __init__(self, path, weights=None, results=None):
        self.path = Path(path)
        # NAME from the library itself (its SONAME, lib<NAME>.so), so that a renamed
        # file loads; libraries built before agc set a SONAME go by their file name.
        soname = _soname(self.path) or self.path.name
        match = re.fullmatch(r"lib(\w+)\.(so|dylib)(\.[\d.]+)?", soname)
        if not match:
            raise Error(f"{self.path}: expected a library named lib<NAME>.so")
        self.name = match.group(1)
        try:
            self._dll = ctypes.CDLL(str(self.path.resolve()))
        except OSError as e:
            raise Error(f"cannot load {self.path}: {e}") from e
        meta_fn = self._symbol(f"{self.name}_metadata", ctypes.c_char_p, [])
        self._last_error = self._symbol(f"{self.name}_last_error", ctypes.c_char_p, [])
        self._release = self._symbol(f"{self.name}_release", None, [ctypes.POINTER(DLTensor)])
        self._release_raw = ctypes.CFUNCTYPE(None, ctypes.c_void_p)(
            ctypes.cast(self._release, ctypes.c_void_p).value)
        # Libraries built before agc had a thread pool do not export it.
        self._set_num_threads = getattr(self._dll, f"{self.name}_set_num_threads", None)
        self.metadata = json.loads(meta_fn().decode("utf-8"))
        self.has_context = bool(self.metadata.get("context"))
        # Tensors of an emulated CUDA library are host memory tagged kDLCUDA.
        device = self.metadata.get("target", {}).get("device", "cpu")
        self._device_type = KDL_CUDA if device == "cuda-emulated" else KDL_CPU
        self._on_gpu = device in ("cuda", "cuda-emulated")
        if results not in (None, "numpy", "dlpack"):
            raise ValueError(f"results must be 'numpy' or 'dlpack', not {results!r}")
        self._results = results or ("dlpack" if device == "cuda" else "numpy")
        self._ctx = None
        if self.has_context:
            self._open_context(weights)
        self.functions = {}
        for meta in self.metadata["functions"]:
            self.functions[meta["name"]] = Function(self, meta)
            setattr(self, meta["name"], self.functions[meta["name"]])

    def _open_context(self, weights):
        create = self._symbol(f"{self.name}_create", ctypes.c_int,
                              [ctypes.POINTER(ctypes.c_void_p), ctypes.c_char_p])
        destroy = self._symbol(f"{self.name}_destroy", None, [ctypes.c_void_p])
        path = None
        if self.metadata["context"].get("weights") == "external":
            path = Path(weights) if weights is not None else self.path.parent / f"{self.name}.weights"
            path = str(path).encode()
        ctx = ctypes.c_void_p()
        status = create(ctypes.byref(ctx), path)
        if status != 0:
            raise Error(self.last_error() or f"{self.name}_create failed with status {status}", status)
        self._ctx = ctx
        self._finalizer = weakref.finalize(self, destroy, ctx)

    def _context(self):
        if self._ctx is None:
            raise Error(f"{self.name}: the library's context was closed")
        return self._ctx

    def save(self, path):
        """`<NAME>_save`: writes the context's variables to the safetensors file `path`."""
        self._context_call("save", path)

    def restore(self, path):
        """`<NAME>_restore`: sets the context's variables from the safetensors file `path`."""
        self._context_call("restore", path)

    @property
    def variables(self):
        """{name: ndarray}: a copy of the context's variables now."""
        import tempfile

        from ._weights import _read_safetensors

        if not self.has_context:
            return {}
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "variables.safetensors"
            self.save(path)
            return _read_safetensors(str(path))

    def _context_call(self, what, path):
        fn = self._symbol(f"{self.name}_{what}", ctypes.c_int, [ctypes.c_void_p, ctypes.c_char_p])
        status = fn(self._context(), str(path).encode())
        if status != 0:
            raise Error(self.last_error() or f"{self.name}_{what} failed with status {status}", status)

    def close(self):
        """Destroys the library's context (calls afterwards raise `agc.Error`)."""
        if self._ctx is not None:
            self._ctx = None
            self._finalizer()

    def _symbol(self, name, restype, argtypes):
        try:
            fn = getattr(self._dll, name)
        except AttributeError as e:
            raise Error(f"{self.path} does not export {name}") from e
        fn.restype = restype
        fn.argtypes = argtypes
        return fn

    def set_num_threads(self, n):
        """`<NAME>_set_num_threads(n)`: the threads the library's large kernels use, caller included."""
        if self._set_num_threads is None:
            raise Error(f"{self.path} was built without threads (no {self.name}_set_num_threads)")
        self._set_num_threads(ctypes.c_int(int(n)))

    def last_error(self):
        """This thread's `<NAME>_last_error()`, as a str."""
        msg = self._last_error()
        return msg.decode("utf-8", "replace") if msg else ""

    def __repr__(self):
        return f"<agc library {self.name} from {self.path}: {', '.join(self.functions)}>"


def _soname(path):
    """The DT_SONAME of a 64-bit little-endian ELF shared library, or None."""
    import struct

    try:
        data = Path(path).read_bytes()
    except OSError:
        return None
    if data[:6] != b"\x7fELF\x02\x01":
        return None
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", data, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    for _, kind, _, _, offset, size, link, _, _, entsize in sections:
        if kind != 6 or not entsize:  # SHT_DYNAMIC
            continue
        strtab = sections[link][4]
        for k in range(size // entsize):
            tag, value = struct.unpack_from("<qQ", data, offset + k * entsize)
            if tag == 14:  # DT_SONAME
                end = data.index(b"\0", strtab + value)
                return data[strtab + value:end].decode("ascii", "replace")
    return None


def load(path, weights=None, results=None):
    """Load `lib<NAME>.so` built by `agc build`; see `Library`."""
    return Library(path, weights, results)


class _CallScratch(threading.local):
    """One thread's argument tensors, shape buffers and result slots for one
    function, made once and refilled at each call (a thread's call never
    shares them with another thread's)."""

    def __init__(self, ranks, nresults, device_type):
        super().__init__()
        inputs = [_new_input(r, device_type) for r in ranks]
        self.tensors = [t for t, _ in inputs]
        self.shapes = [shape for _, shape in inputs]
        self.outs = [ctypes.POINTER(DLTensor)() for _ in range(nresults)]
        self.args = tuple(ctypes.pointer(t) for t in self.tensors) + tuple(
            ctypes.pointer(o) for o in self.outs
        )


def _as_input(value, declared):
    """The C-contiguous, aligned array passed for a parameter of dtype `declared`.

    The dtype policy: an array (numpy, or any DLPack producer, taken without a
    copy through `np.from_dlpack`) is passed with its own dtype, and the library
    refuses one that is not the parameter's (never a silent cast); Python
    numbers and (nested) lists and tuples of them take the parameter's dtype,
    as numpy's weak scalars do, when numpy casts their kind to it
    (`same_kind`: ints to floats, not floats to ints)."""
    if not isinstance(value, np.ndarray) and hasattr(value, "__dlpack__"):
        value = np.from_dlpack(value)
    if isinstance(value, np.ndarray):
        arr = value
    else:
        arr = np.asarray(value)
        if arr.dtype != declared:
            if not np.can_cast(arr.dtype, declared, "same_kind"):
                raise Error(f"a {arr.dtype} value cannot be passed for a {declared} parameter "
                            f"(numpy would not cast it: convert it explicitly)")
            arr = arr.astype(declared)
    if not arr.dtype.isnative:
        arr = arr.astype(arr.dtype.newbyteorder("="))
    if not arr.flags.c_contiguous or not arr.flags.aligned:  # the library refuses misaligned elements
        arr = arr.copy(order="C")
    return arr


_DL_DTYPES = {}


def _fill_input(tensor, shape, arr):
    """Points `tensor` at `arr` (C-contiguous, strides NULL) with its sizes in
    `shape`, the tensor's own buffer of the declared rank; an array of a
    higher rank (which the library will refuse, naming its shape) gets a
    buffer of its own."""
    if arr.ndim > len(shape):
        tensor._wide_shape = shape = (ctypes.c_int64 * arr.ndim)()
        tensor.shape = ctypes.cast(shape, ctypes.POINTER(ctypes.c_int64))
    elif getattr(tensor, "_wide_shape", None) is not None:
        tensor._wide_shape = None
        tensor.shape = ctypes.cast(shape, ctypes.POINTER(ctypes.c_int64))
    for k, n in enumerate(arr.shape):
        shape[k] = n
    dtype = _DL_DTYPES.get(arr.dtype)
    if dtype is None:
        dtype = _DL_DTYPES[arr.dtype] = dl_dtype(arr.dtype)
    tensor.data = arr.ctypes.data
    tensor.ndim = arr.ndim
    tensor.dtype = dtype


def _new_input(rank, device_type=KDL_CPU):
    """A DLTensor (C-contiguous: strides NULL) of host memory tagged with
    `device_type` (kDLCUDA for an emulated CUDA library, whose "device" is
    the host), and its shape buffer for rank `rank`, to be filled by
    `_fill_input`."""
    shape = (ctypes.c_int64 * max(rank, 1))()
    tensor = DLTensor(device=DLDevice(device_type, 0))
    tensor.shape = ctypes.cast(shape, ctypes.POINTER(ctypes.c_int64))
    return tensor, shape


def _input_tensor(arr):
    """A DLTensor for `arr` and its shape buffer, which must outlive the call."""
    tensor, shape = _new_input(arr.ndim)
    _fill_input(tensor, shape, arr)
    return tensor, shape


class _ResultOwner:
    """Keeps a result tensor of the library alive while a numpy array views its data."""

    __slots__ = ("address", "release")

    def __init__(self, address, release):
        self.address, self.release = address, release

    def __del__(self):
        self.release(ctypes.cast(self.address, ctypes.POINTER(DLTensor)))


def _take(ptr):
    """A pointer of its own to the tensor `ptr` (a reused result slot) points to."""
    return ctypes.cast(ctypes.cast(ptr, ctypes.c_void_p).value, ctypes.POINTER(DLTensor))


def _adopt(ptr, release, host_device=KDL_CPU):
    """A numpy array of result tensor `ptr`: a view of its data without a copy
    (the tensor is released when the array dies) where its layout is compact,
    else a copy (and the tensor released now). `host_device` is the device
    type whose memory the host reads (kDLCUDA in an emulated CUDA library)."""
    if not ptr:
        raise Error("the library returned a NULL result")
    t = ptr.contents
    dtype = np_dtype(t.dtype) if t.device.device_type == host_device else None
    shape = tuple(t.shape[: t.ndim])
    nbytes = math.prod(shape) * (dtype.itemsize if dtype is not None else 0)
    compact = not t.strides or tuple(t.strides[: t.ndim]) == tuple(
        s // dtype.itemsize for s in _contiguous_strides(shape, dtype.itemsize))
    if dtype is None or nbytes == 0 or not t.data or not compact:
        try:
            return _to_numpy(ptr, host_device)
        finally:
            release(ptr)
    buf = (ctypes.c_char * nbytes).from_address(t.data + t.byte_offset)
    buf._owner = _ResultOwner(ctypes.cast(ptr, ctypes.c_void_p).value, release)
    return np.frombuffer(buf, dtype).reshape(shape)


def _to_numpy(ptr, host_device=KDL_CPU):
    if not ptr:
        raise Error("the library returned a NULL result")
    t = ptr.contents
    if t.device.device_type != host_device:
        raise Error(f"result on device type {t.device.device_type}, expected {host_device} (host memory)")
    dtype = np_dtype(t.dtype)
    shape = tuple(t.shape[: t.ndim])
    count = math.prod(shape)
    if count == 0:
        return np.empty(shape, dtype)
    if not t.data:
        raise Error("the library returned a result with NULL data")
    base = t.data + t.byte_offset
    if t.strides:
        strides = tuple(s * dtype.itemsize for s in t.strides[: t.ndim])
    else:
        strides = None
    if strides is None or strides == _contiguous_strides(shape, dtype.itemsize):
        out = np.empty(shape, dtype)
        ctypes.memmove(out.ctypes.data, base, count * dtype.itemsize)
        return out
    lo = sum(min(0, (n - 1) * s) for n, s in zip(shape, strides))
    hi = sum(max(0, (n - 1) * s) for n, s in zip(shape, strides)) + dtype.itemsize
    buf = (ctypes.c_char * (hi - lo)).from_address(base + lo)
    return np.ndarray(shape, dtype, buffer=buf, offset=-lo, strides=strides).copy()


def _contiguous_strides(shape, itemsize):
    strides, step = [], itemsize
    for n in reversed(shape):
        strides.append(step)
        step *= n
    return tuple(reversed(strides))
