"""Calling an agc export with as little Python in the way as possible.

`agc.load(...).f(*arrays)` builds the argument tensors and copies every
result into a new numpy array on each call. The benchmarks time the library
instead: `Raw` prepares the `DLTensor`s of an argument list once and calls the
C function through ctypes with them, returning the library's own result
tensors (released by the caller, or passed on as the next call's arguments
without a copy, which is what a C caller would do).

`MallocCounter` reads the counters of `malloc_count.c` when the process was
started with it in LD_PRELOAD.
"""

import ctypes

import numpy as np

from agc._loader import DLTensor, _as_input, _input_tensor, _to_numpy


class Raw:
    """One export of a loaded `agc.Library`, called with prepared tensors.

    Tensors are passed as plain addresses (`void*` arguments: ctypes converts
    ints fastest), results come back as the addresses of the library's
    `DLTensor`s; an address of a result may be passed as an argument.
    """

    def __init__(self, library, name):
        self.library = library
        self.fn = library.functions[name]
        self.n_params = len(self.fn.params)
        self.n_results = len(self.fn.results)
        address = ctypes.cast(self.fn._cfn, ctypes.c_void_p).value
        n_args = self.n_params + self.n_results
        self.cfn = ctypes.CFUNCTYPE(ctypes.c_int, *[ctypes.c_void_p] * n_args)(address)
        release = ctypes.cast(library._release, ctypes.c_void_p).value
        self.release_fn = ctypes.CFUNCTYPE(None, ctypes.c_void_p)(release)

    def prepare(self, arrays):
        """Argument addresses for `arrays` (numpy arrays, or result addresses passed on as they are)."""
        return Args(self.fn, arrays)

    def call(self, args):
        """Calls the export with a list of argument addresses; returns the result addresses."""
        outs = (ctypes.c_void_p * self.n_results)()
        base = ctypes.addressof(outs)
        status = self.cfn(*args, *[base + 8 * i for i in range(self.n_results)])
        if status != 0:
            raise RuntimeError(f"{self.fn.__name__}: status {status}: {self.library.last_error()}")
        return list(outs)

    def release(self, outs):
        for o in outs:
            self.release_fn(o)

    @staticmethod
    def numpy(outs):
        """Copies of the result tensors as numpy arrays."""
        return [_to_numpy(ctypes.cast(o, ctypes.POINTER(DLTensor))) for o in outs]


class Args(list):
    """Argument addresses for `Raw.call`, holding the buffers they point to."""

    def __init__(self, fn, arrays):
        keep = []
        addrs = []
        for a, dt in zip(arrays, fn._param_dtypes):
            if isinstance(a, int):
                addrs.append(a)
                continue
            arr = _as_input(np.asarray(a, dtype=dt), dt)
            tensor, shape = _input_tensor(arr)
            keep.append((arr, tensor, shape))
            addrs.append(ctypes.addressof(tensor))
        super().__init__(addrs)
        self._keep = keep


class MallocCounter:
    """Reads `agcb_counts` of the preloaded `malloc_count.c`; `available` is False without it."""

    def __init__(self):
        try:
            self._fn = ctypes.CDLL(None).agcb_counts
            self._fn.restype = None
            self._buf = (ctypes.c_uint64 * 4)()
            self.available = True
        except AttributeError:
            self.available = False

    def read(self):
        """(allocation calls, bytes requested, frees, reallocs) so far in this process."""
        self._fn(self._buf)
        return tuple(self._buf)

    def per_call(self, f, calls_per_f, repeat=5):
        """Allocations and bytes per export call while running `f` `repeat` times."""
        import time

        t0 = time.perf_counter()
        f()  # warm
        once = time.perf_counter() - t0
        repeat = max(repeat, min(1000, int(0.5 / max(once, 1e-9))))
        a = self.read()
        for _ in range(repeat):
            f()
        b = self.read()
        n = repeat * calls_per_f
        return {"calls": n, "mallocs": (b[0] - a[0]) / n, "bytes": (b[1] - a[1]) / n, "frees": (b[2] - a[2]) / n,
                "reallocs": (b[3] - a[3]) / n}
