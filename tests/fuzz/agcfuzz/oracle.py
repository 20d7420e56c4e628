"""The oracle: a program module imported and run eagerly by CPython + numpy (autograd for agc.grad).

`evaluate(module, export, inputs)` gives the eager results plus a noise
estimate per result (how much the result moves when the float inputs move
by a few ulps), which widens the comparison's absolute tolerance for
ill-conditioned results. `validate` decides whether a generated program is
usable as a test: it must run without error, give finite, moderate values
of the declared dtypes and shapes, and not be hopelessly ill-conditioned.
"""

import importlib.util
import itertools
import signal
import sys
import warnings
import zlib
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from . import static_types as T

EAGER_TIMEOUT_S = 5.0
MAX_MAGNITUDE = 1e4
PERTURB_REL = {np.dtype(np.float32): 2.0 ** -21, np.dtype(np.float64): 2.0 ** -49}
SUPPORTED = {np.dtype(t) for t in (np.float32, np.float64, np.int32, np.int64, np.bool_)}

_counter = itertools.count()
warnings.filterwarnings("ignore", message="Output seems independent of input")
warnings.filterwarnings("ignore", category=SyntaxWarning)  # shrinking candidates like (a, b)[:, 0]


class Invalid(Exception):
    """The program is not a usable test on these inputs (the reason is the message)."""


class EagerTimeout(Exception):
    pass


@contextmanager
def time_limit(seconds):
    def handler(signum, frame):
        raise EagerTimeout(f"eager run over {seconds} s")

    old = signal.signal(signal.SIGALRM, handler)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def import_source(path):
    """Import the module file at `path` under a fresh name (eager mode, as CPython runs it)."""
    name = f"agcfuzz_mod_{next(_counter)}_{Path(path).stem}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    finally:
        sys.modules.pop(name, None)
    return module


def export_fn(module, name):
    import agc

    for e in agc.exports_of(module):
        if e.name == name:
            return e
    raise Invalid(f"no export {name}")


# ---------------------------------------------------------------- inputs

def input_sets(program, count=2):
    """Input arrays per export for `count` input sets: symbolic dims take small sizes (different per
    set), floats are standard normal, the run-time ints are in the export's ranges."""
    rng = np.random.default_rng(zlib.crc32(f"inputs/{program.pid}/{program.attempt}".encode()))
    sets = []
    for k in range(count):
        lo, hi = ((2, 5), (1, 4), (1, 1))[k % 3]  # the third set: every symbolic dim is 1
        dims = {}
        per_export = {}
        for e in program.exports:
            arrays = []
            tree = None
            if e.tree:
                if "N" not in dims:
                    dims["N"] = 2 * int(rng.integers(1, 6 if k < 2 else 2)) - 1
                tree = random_binary_tree(rng, (dims["N"] + 1) // 2)
            for pname, ty in e.params:
                if e.tree and pname in e.tree:
                    arrays.append(tree[e.tree.index(pname)])
                    continue
                for d in ty.shape:
                    if isinstance(d, str) and d not in dims:
                        dims[d] = int(rng.integers(lo, hi + 1))
                shape = T.concrete(ty.shape, dims)
                dt = np.dtype(T.NUMPY_DTYPE[ty.dt])
                if pname in e.int_ranges:
                    a, b = e.int_ranges[pname][k % len(e.int_ranges[pname])] if k < 2 else (2, 3)
                    arrays.append(np.asarray(rng.integers(a, b + 1, size=shape), dtype=dt))
                elif dt.kind == "f":
                    arrays.append(rng.standard_normal(shape).astype(dt))
                elif dt.kind == "b":
                    arrays.append(rng.random(shape) < 0.5)
                else:
                    arrays.append(rng.integers(-5, 6, size=shape).astype(dt))
            per_export[e.name] = arrays
        sets.append({"dims": dims, "inputs": per_export})
    return sets


def random_binary_tree(rng, leaves):
    """Index arrays (left, right) of a random full binary tree (node 0 the root, -1 a leaf), as
    tests/harness.py makes them."""
    left, right = [-1], [-1]
    frontier = [0]
    while (len(left) + 1) // 2 < leaves:
        node = frontier.pop(int(rng.integers(len(frontier))))
        left[node], right[node] = len(left), len(left) + 1
        left += [-1, -1]
        right += [-1, -1]
        frontier += [len(left) - 2, len(left) - 1]
    return np.array(left, np.int64), np.array(right, np.int64)


# ---------------------------------------------------------------- eager runs

def flatten(out):
    if isinstance(out, (tuple, list)):
        return [leaf for item in out for leaf in flatten(item)]
    return [out]


def run_eager(fn, inputs):
    with np.errstate(all="ignore"), time_limit(EAGER_TIMEOUT_S):
        out = fn(*[np.array(a, copy=True) for a in inputs])
    return tuple(np.asarray(r) for r in flatten(out))


ROUNDED = ("sin", "cos", "tan", "tanh", "exp", "log", "sqrt", "expm1", "log1p", "arctan", "sinh", "cosh",
           "exp2", "log2", "log10", "power")


class RoundedNumpy:
    """numpy with float32 transcendental functions computed in float64 and rounded once: what a
    correctly rounded float32 libm gives. numpy's own float32 tanh/exp/... are within an ulp or two,
    and so are agc's; where a result is then truncated to an integer or compared, an ulp decides.
    A mismatch that disappears against this oracle is rounding, not a bug."""

    def __init__(self, np_module):
        self._np = np_module

    def __getattr__(self, name):
        f = getattr(self._np, name)
        if name not in ROUNDED:
            return f

        def rounded(*args, **kwargs):
            if any(np.asarray(a).dtype == np.float32 for a in args):
                wide = [np.asarray(a, np.float64) if np.asarray(a).dtype == np.float32 else a for a in args]
                return f(*wide, **kwargs).astype(np.float32)
            return f(*args, **kwargs)

        return rounded


def run_rounded(module, fn, inputs):
    """The export run eagerly with `RoundedNumpy` as the module's `np`."""
    saved = module.np
    module.np = RoundedNumpy(saved)
    try:
        return run_eager(fn, inputs)
    finally:
        module.np = saved


def perturbed(inputs, rng):
    out = []
    for a in inputs:
        if a.dtype.kind == "f":
            eps = PERTURB_REL[a.dtype]
            a = (a * (1 + eps * rng.uniform(-1, 1, size=a.shape))).astype(a.dtype)
        out.append(a)
    return out


JITTERED = ROUNDED + ("sum", "mean", "prod", "matmul", "dot", "cumsum", "var", "std")


class JitteredNumpy:
    """numpy whose transcendental functions and reductions return results moved by a few ulps (a
    different libm, summation order or polynomial): a program whose inputs are rounded away before
    its arithmetic (`x.astype(np.int64)`) escapes the input perturbation, yet may amplify such
    differences without bound (`cos(sum(x) * x)` of growing magnitudes, fuzz seed 5101's 135)."""

    def __init__(self, np_module, rng):
        self._np, self._rng = np_module, rng

    def __getattr__(self, name):
        f = getattr(self._np, name)
        if name not in JITTERED:
            return f

        def jittered(*args, **kwargs):
            r = f(*args, **kwargs)
            if not isinstance(r, (np.ndarray, np.floating)):  # an autograd box under agc.grad
                return r
            a = np.asarray(r)
            if a.dtype.kind != "f":
                return r
            eps = PERTURB_REL.get(a.dtype, 0.0)
            out = (a * (1 + eps * self._rng.uniform(-1, 1, size=a.shape))).astype(a.dtype)
            return out if isinstance(r, np.ndarray) else out[()]

        return jittered


def run_jittered(module, fn, inputs, rng):
    """The export run eagerly with `JitteredNumpy` as the module's `np`; None where that run
    fails (`agc.grad` in eager mode swaps the module's `np` for autograd's only when it is
    `agc.numpy` itself, so a gradient program does not run with the wrapper)."""
    saved = module.np
    module.np = JitteredNumpy(saved, rng)
    try:
        return run_eager(fn, inputs)
    except Exception:
        return None
    finally:
        module.np = saved


def evaluate(fn, inputs, perturbations=2, seed=0, module=None):
    """(results, noise): eager results, and per result the largest change under tiny perturbations
    of the inputs and (given the module) of its numpy functions' results."""
    results = run_eager(fn, inputs)
    noise = [0.0] * len(results)
    rng = np.random.default_rng(seed)
    runs = [lambda: run_eager(fn, perturbed(inputs, rng)) for _ in range(perturbations)]
    if module is not None and hasattr(module, "np"):
        runs.append(lambda: run_jittered(module, fn, inputs, rng))
    for run in runs:
        other = run()
        if other is None:
            continue
        if len(other) != len(results):
            raise Invalid("result count changes under perturbation")
        for k, (a, b) in enumerate(zip(results, other)):
            if a.shape != b.shape or a.dtype != b.dtype:
                raise Invalid("result type changes under perturbation")
            if a.dtype.kind == "f" and a.size:
                noise[k] = max(noise[k], float(np.max(np.abs(a.astype(np.float64) - b))))
            elif a.size and not np.array_equal(a, b):
                raise Invalid("an integer or bool result changes under a tiny perturbation")
    return results, noise


def check_results(results, noise, declared=None, dims=None):
    """Raise Invalid unless the eager results make a good test."""
    for k, r in enumerate(results):
        if r.dtype not in SUPPORTED:
            raise Invalid(f"result {k} has dtype {r.dtype}")
        if r.dtype.kind == "f":
            if not np.all(np.isfinite(r)):
                raise Invalid("non-finite result")
            mag = float(np.max(np.abs(r))) if r.size else 0.0
            if mag > MAX_MAGNITUDE:
                raise Invalid("result magnitude over 1e4")
            scale = max(1.0, mag)
            limit = 1e-3 if r.dtype == np.float32 else 1e-9
            if noise[k] > limit * scale:
                raise Invalid("ill-conditioned (moves under a few-ulp input perturbation)")
    if declared is not None:
        if len(declared) != len(results):
            raise Invalid(f"generator: {len(results)} results, declared {len(declared)}")
        for k, (ty, r) in enumerate(zip(declared, results)):
            want_dt = np.dtype(T.NUMPY_DTYPE.get(ty.dt, "float64"))
            want_shape = T.concrete(ty.shape, dims)
            if r.dtype != want_dt or r.shape != want_shape:
                raise Invalid(f"generator type error: result {k} is {r.dtype}{r.shape}, declared {ty}")


def expected_for(module, program, sets, only=None):
    """{(export, set index): (results, noise)} for every export and input set; Invalid if unusable.

    `only` = (export name, set index) evaluates just that pair (the shrinker's case)."""
    out = {}
    for e in program.exports:
        fn = export_fn(module, e.name)
        for k, s in enumerate(sets):
            if only is not None and (e.name, k) != only:
                continue
            try:
                results, noise = evaluate(fn, s["inputs"][e.name], seed=k, module=module)
            except Invalid:
                raise
            except EagerTimeout as err:
                raise Invalid(str(err))
            except RecursionError:
                raise Invalid("eager RecursionError")
            except Exception as err:  # the program is not valid Python/numpy on these inputs
                raise Invalid(f"eager {type(err).__name__}: {str(err).splitlines()[0] if str(err) else ''}"[:160])
            check_results(results, noise, e.ret_tys, s["dims"])
            out[(e.name, k)] = (results, noise)
    return out
