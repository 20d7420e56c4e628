"""Shared pieces of the end-to-end tests: the model corpus, inputs, the numpy oracle, the build cache.

Every numeric check compares a compiled library with the same Python
function run eagerly under CPython and numpy; nothing is compared with a
stored output of the compiler.
"""

import importlib.util
import os
import re
import subprocess
import sys
import threading
import zlib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

TESTS = Path(__file__).resolve().parent
REPO = TESTS.parent
MODELS = TESTS / "models"

sys.path.insert(0, str(REPO / "python"))  # the package as in the repository, installed or not
import agc  # noqa: E402

# Sizes given to symbolic dims, in order of first appearance; distinct so that mixed-up dims show.
DEFAULT_DIM_SIZES = (5, 3, 4, 6, 2, 7, 8, 9)
# A second assignment checks that one library serves several sizes.
SECOND_DIM_SIZES = (2, 7, 1, 3, 6, 4, 5, 8)

# What the eager run may raise where the library must return an error status instead: numpy's
# index and shape errors, and CPython's where a staged path that raises is taken (a variable read
# on a path that did not assign it, a missing key, a division by zero, a failed assert).
EAGER_ERRORS = (IndexError, ValueError, NameError, KeyError, ZeroDivisionError, AssertionError)

SUPPORTED_DTYPES = {np.dtype(t) for t in (np.float32, np.float64, np.int32, np.int64, np.bool_)}


def model_paths():
    return sorted(MODELS.glob("*.py"))


_modules = {}
_modules_lock = threading.Lock()


def import_model(path):
    """Import a model file as a fresh module (cached), as CPython runs it in eager mode."""
    path = Path(path)
    with _modules_lock:
        if path not in _modules:
            name = f"agc_model_{path.parent.name}_{path.stem}"
            spec = importlib.util.spec_from_file_location(name, path)
            module = importlib.util.module_from_spec(spec)
            sys.modules[name] = module
            spec.loader.exec_module(module)
            _modules[path] = module
        return _modules[path]


def exports(module):
    """{export name: agc.ExportedFunction} of a model module."""
    return {e.name: e for e in agc.exports_of(module)}


def dim_sizes(module, sizes=DEFAULT_DIM_SIZES):
    """Sizes for every symbolic dim in the module's exports; `AGC_TEST_DIMS` overrides the defaults."""
    names = []
    for e in agc.exports_of(module):
        for _, spec in e.params:
            names += [s for s in spec.symbols if s not in names]
    dims = {n: sizes[i % len(sizes)] for i, n in enumerate(names)}
    if sizes is DEFAULT_DIM_SIZES:
        dims.update(getattr(module, "AGC_TEST_DIMS", {}))
    return dims


def random_binary_tree(rng, leaves):
    """Index arrays `(left, right)` of a random full binary tree with `leaves` leaves (node 0 is
    the root, -1 marks a leaf), for the recursion models' inputs."""
    left, right = [-1], [-1]
    frontier = [0]
    while (len(left) + 1) // 2 < leaves:
        node = frontier.pop(rng.integers(len(frontier)))
        left[node], right[node] = len(left), len(left) + 1
        left += [-1, -1]
        right += [-1, -1]
        frontier += [len(left) - 2, len(left) - 1]
    return np.array(left, np.int64), np.array(right, np.int64)


def random_array(rng, dtype, shape):
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        return rng.standard_normal(shape).astype(dtype)
    if dtype.kind == "i":
        return rng.integers(-10, 11, size=shape).astype(dtype)
    if dtype.kind == "b":
        return rng.random(shape) < 0.5
    raise ValueError(f"no random inputs for dtype {dtype}")


def make_inputs(module, export, rng, dims):
    """The model's `agc_test_inputs` hook if it gives inputs, else random arrays from the specs."""
    hook = getattr(module, "agc_test_inputs", None)
    if hook is not None:
        given = hook(export.name, rng, dims)
        if given is not None:
            return [np.asarray(a) for a in given]
    return [random_array(rng, spec.dtype, spec.concrete_shape(dims)) for _, spec in export.params]


def bind_dims(export, inputs):
    """The symbolic dim sizes that `inputs` give `export`'s parameters; AssertionError if they do not fit."""
    bound = {}
    for (name, spec), a in zip(export.params, inputs):
        assert a.dtype == spec.dtype and a.ndim == spec.ndim, f"input {name}: {a.dtype}{a.shape} for {spec}"
        for d, n in zip(spec.shape, a.shape):
            assert bound.setdefault(d, n) == n if isinstance(d, str) else d == n, f"input {name}: {a.shape} for {spec}"
    return bound


def eager(export, inputs):
    """The oracle: the function run by CPython and numpy on copies of the inputs, results as a
    tuple of arrays (nested tuples and lists flattened in order, as the C ABI returns them)."""
    with np.errstate(all="ignore"):
        out = export(*[np.array(a, copy=True) for a in inputs])
    return tuple(np.asarray(r) for r in flatten_results(out))


def flatten_results(out):
    """A result as the flat sequence of its arrays: tuples and lists are flattened depth-first."""
    if isinstance(out, (tuple, list)):
        return [leaf for item in out for leaf in flatten_results(item)]
    return [out]


def tolerances(dtype, expected):
    """(rtol, atol) for a float result: relative, plus an absolute floor scaled by the result's magnitude."""
    finite = np.abs(expected[np.isfinite(expected)]) if expected.size else np.zeros(0)
    scale = max(1.0, float(finite.max())) if finite.size else 1.0
    if dtype == np.float32:
        return 1e-4, 1e-5 * scale
    return 1e-10, 1e-12 * scale


def assert_matches(actual, expected, what):
    """`actual` (from the library) equals numpy's `expected`: dtype, shape, values."""
    assert isinstance(actual, np.ndarray), f"{what}: got {type(actual).__name__}, expected an ndarray"
    assert actual.dtype == expected.dtype, f"{what}: dtype {actual.dtype}, numpy gives {expected.dtype}"
    assert actual.shape == expected.shape, f"{what}: shape {actual.shape}, numpy gives {expected.shape}"
    if expected.dtype.kind == "f":
        rtol, atol = tolerances(expected.dtype, expected)
        np.testing.assert_allclose(actual, expected, rtol=rtol, atol=atol, equal_nan=True, err_msg=what)
    else:
        np.testing.assert_array_equal(actual, expected, err_msg=what)


def check_call(fn, export, inputs, what):
    """Call the compiled `fn` and the eager `export` on `inputs`; compare every result.

    Where numpy raises (an index out of range for these run-time sizes, a reshape
    that does not fit) or CPython does (a variable read on a path that did not
    assign it), the library must return an error status: `agc.Error`.
    """
    try:
        expected, numpy_error = eager(export, inputs), None
    except EAGER_ERRORS as e:
        expected, numpy_error = None, f"{type(e).__name__} ({e})"
    if numpy_error:
        try:
            got = fn(*inputs)
        except agc.Error:
            return
        pytest.fail(f"{what}: numpy raises {numpy_error}, but the library returned {got!r} "
                    "instead of an error status", pytrace=False)
    got = fn(*inputs)
    got = got if isinstance(got, tuple) else (got,)
    assert len(got) == len(expected), f"{what}: {len(got)} results, numpy gives {len(expected)}"
    for k, (a, e) in enumerate(zip(got, expected)):
        assert_matches(a, e, f"{what}, result {k}")


def rng_for(*keys):
    """A generator seeded from the test's identity, so every run sees the same inputs."""
    return np.random.default_rng(zlib.crc32("/".join(map(str, keys)).encode()))


def find_agc_binary():
    """`$AGC_BIN`, else `<repo>/target/release/agc`; None if neither exists."""
    env = os.environ.get("AGC_BIN")
    candidate = Path(env) if env else REPO / "target" / "release" / "agc"
    return candidate if candidate.is_file() and os.access(candidate, os.X_OK) else None


def run_agc(binary, *args, cwd=None, timeout=300):
    return subprocess.run([str(binary), *map(str, args)], capture_output=True, text=True, cwd=cwd, timeout=timeout)


def known_unsupported(module, path, binary, workdir):
    """True for a model marked `AGC_KNOWN_UNSUPPORTED = "phrase"`: it uses a construct agc
    does not stage yet, documented by the marker. Checks that the build fails cleanly instead
    (exit code 1, a `file:line:col: error:` diagnostic containing the phrase, no output written),
    so the test starts failing, and the marker must go, once the construct is supported."""
    phrase = getattr(module, "AGC_KNOWN_UNSUPPORTED", None)
    if phrase is None:
        return False
    out = Path(workdir) / "unsupported-out"
    proc = subprocess.run([str(binary), "build", str(path), "-o", str(out)], capture_output=True, text=True)
    assert proc.returncode == 1, f"expected a clean 'not supported' error (exit 1), got exit {proc.returncode}\n{proc.stderr}"
    assert re.match(rf"^{re.escape(str(path))}:\d+:\d+: error: ", proc.stderr), proc.stderr
    assert phrase in proc.stderr, proc.stderr
    assert not out.exists() or not any(out.iterdir()), "nothing may be written on error"
    return True


class BuildCache:
    """Builds each model once per session, all wanted models in parallel on first use.

    `AGC_TEST_OPT_LEVEL=0..3` in the environment builds everything at that -O level.

    `get(path)` returns the built `lib<NAME>.so` or raises `agc.Error` with the
    compiler's output; a failed build fails every test of that model the same way.
    """

    def __init__(self, binary, root, wanted=()):
        self.binary = binary
        self.root = Path(root)
        self.wanted = list(dict.fromkeys(Path(p) for p in wanted))
        self.pool = ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2))
        self.futures = {}
        self.lock = threading.Lock()

    def get(self, path, **options):
        options = self._effective(options)
        key = (Path(path), tuple(sorted(options.items())))
        with self.lock:
            if not self.futures and options == self._effective({}):
                for p in self.wanted:
                    self.futures[(p, key[1])] = self.pool.submit(self._build, p, options)
            if key not in self.futures:
                self.futures[key] = self.pool.submit(self._build, Path(path), options)
            future = self.futures[key]
        try:
            return future.result()
        except agc.Error as e:  # the compiler's own message is the useful part, not our traceback
            message = str(e)
        pytest.fail(f"agc build {Path(path).name} failed:\n{message}", pytrace=False)

    @staticmethod
    def _effective(options):
        """The options with `AGC_TEST_OPT_LEVEL` applied: one cache entry (and one output
        folder) per distinct build, so a library in use is never rebuilt in place."""
        if "opt_level" not in options and os.environ.get("AGC_TEST_OPT_LEVEL"):
            return {**options, "opt_level": int(os.environ["AGC_TEST_OPT_LEVEL"])}
        return options

    def _build(self, path, options):
        tag = re.sub(r"\W+", "-", "_".join(f"{k}{v}" for k, v in sorted(options.items()))).strip("-")
        # The output folder names the model's parent folder too: models in
        # different folders may share a file stem.
        out = self.root / f"{path.parent.name}__{path.stem}" / (tag or "default")
        return agc.build(path, out, **options)

    def close(self):
        self.pool.shutdown(wait=False, cancel_futures=True)


class IsolatedFunction:
    """Calls a library function in a child process, for models that may crash it (a trap, a signal).

    Same calling convention as `agc.load(...).<fn>`: results, or `agc.Error` for an error status.
    """

    def __init__(self, so_path, name, workdir):
        self.so_path, self.name, self.workdir = Path(so_path), name, Path(workdir)

    def __call__(self, *inputs):
        given, results = self.workdir / "inputs.npz", self.workdir / "results.npz"
        np.savez(given, **{f"a{i}": a for i, a in enumerate(inputs)})
        proc = subprocess.run([sys.executable, __file__, str(self.so_path), self.name, str(given), str(results)],
                              capture_output=True, text=True, timeout=300)
        if proc.returncode < 0:
            raise AssertionError(f"{self.name} killed the process with signal {-proc.returncode}\n{proc.stderr}")
        if proc.returncode == _ISOLATED_AGC_ERROR:
            raise agc.Error(proc.stdout.strip())
        assert proc.returncode == 0, f"{self.name} in a child process failed:\n{proc.stderr}"
        with np.load(results) as f:
            out = tuple(f[f"r{i}"] for i in range(len(f.files)))
        return out[0] if len(out) == 1 else out


_ISOLATED_AGC_ERROR = 3


def _isolated_main(so_path, name, given, results):
    with np.load(given) as f:
        inputs = [f[f"a{i}"] for i in range(len(f.files))]
    try:
        out = agc.load(so_path).functions[name](*inputs)
    except agc.Error as e:
        print(e)
        sys.exit(_ISOLATED_AGC_ERROR)
    out = out if isinstance(out, tuple) else (out,)
    np.savez(results, **{f"r{i}": r for i, r in enumerate(out)})


if __name__ == "__main__":
    _isolated_main(*sys.argv[1:])
