"""`agc.grad` / `agc.value_and_grad` inside exported functions: the gradient programs in tests/grad_models.

Every export listed in a module's `AGC_GRAD_CHECKS` is compiled and called,
and its results are checked against two oracles that never involve the
compiler:

(a) the eager CPython run of the same export (its `agc.grad` is autograd);
(b) float64 central finite differences of the scalar function the export
    differentiates, evaluated by plain numpy on float64 copies of the inputs.

## The convention of a gradient module (tests/grad_models/*.py)

    AGC_GRAD_CHECKS = {
        "export_name": ("loss_function_name", argnums),
        "other_export": ("loss_function_name", argnums, {options}),
    }

`argnums` is what the export passes to `agc.grad` (an int or a tuple). By
default the export's results are exactly the gradient leaves (flattened in
the order of the differentiated arguments; tuples/lists in order, dicts in
insertion order) and the loss is called with the export's inputs. Options:

- `"value": True`: the first result is the loss value (value_and_grad);
- `"args": "fn_name"`: `fn_name(*inputs)` gives the loss's positional
  arguments (a tuple), for exports that assemble pytrees or pass
  compile-time arguments;
- `"view": "fn_name"`: `fn_name(inputs, results)` gives the flat list
  `[value?] + gradient leaves` from the export's results (e.g. the gradient
  recovered from an SGD update `(p - p_new) / lr`);
- `"eager": "fn_name"`: the eager oracle runs `fn_name(*inputs)` instead of
  the export, for programs autograd cannot run as written (item assignment
  into arrays): `fn_name` differentiates the same function written without
  it. Finite differences still use the loss as written.

An export whose results are not a gradient of one function (several SGD steps
in a staged loop) maps to `None`: it is checked against the eager run only,
and the module must then have another export that is checked both ways.
Exports with a dedicated test below are listed in `AGC_GRAD_DEDICATED`.

Inputs: `agc_grad_inputs(export_name, rng)` may return a list of input sets
(each a list of arrays); otherwise random inputs from the annotations
(tests/harness.py), for two assignments of the symbolic dims.

Differentiated parameters with more than `FD_MAX_ELEMENTS` elements are
checked by finite differences along random directions and at a few
coordinates (the largest gradient entries, and random ones) instead of every
coordinate; the eager oracle still checks every entry.
"""

import math
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

import agc
import harness

GRAD_MODELS = harness.TESTS / "grad_models"

FD_REL_STEP = 1e-6
FD_MAX_ELEMENTS = 600
FD_DIRECTIONS = 6
FD_COORDINATES = 4

# (rtol, atol relative to the magnitude of the reference result)
TOL = {np.dtype(np.float32): (1e-3, 1e-5), np.dtype(np.float64): (1e-6, 1e-9)}
# float64 finite differences are themselves accurate to ~1e-8 relative.
FD_TOL = {np.dtype(np.float32): (1e-3, 1e-5), np.dtype(np.float64): (1e-5, 1e-7)}


def grad_model_paths():
    return sorted(p for p in GRAD_MODELS.glob("*.py") if not p.name.startswith(("_", "conftest")))


def _module(path):
    return harness.import_model(path)


def _cases():
    cases, meta = [], []
    for path in grad_model_paths():
        try:
            module = _module(path)
            checks = getattr(module, "AGC_GRAD_CHECKS", {})
            names = list(checks) or [None]
        except Exception:  # the test reports it with the traceback
            names = [None]
        cases += [pytest.param(path, name, id=f"{path.stem}::{name}") for name in names]
        meta.append(pytest.param(path, id=path.stem))
    return cases, meta


CASES, MODULE_CASES = _cases()
_libraries = {}


def load(builds, model_path):
    so = builds.get(model_path)
    if so not in _libraries:
        _libraries[so] = agc.load(so)
    return _libraries[so]


# ---------------------------------------------------------------- pytrees


def flatten(tree):
    """The array leaves of nested tuples/lists/dicts, in order (dicts in insertion order)."""
    if isinstance(tree, (tuple, list)):
        return [leaf for item in tree for leaf in flatten(item)]
    if isinstance(tree, dict):
        return [leaf for item in tree.values() for leaf in flatten(item)]
    return [tree]


def unflatten(template, leaves):
    it = iter(leaves)

    def build(t):
        if isinstance(t, (tuple, list)):
            items = [build(x) for x in t]
            return type(t)(*items) if hasattr(t, "_fields") else type(t)(items)  # namedtuples take fields
        if isinstance(t, dict):
            return {k: build(v) for k, v in t.items()}
        return next(it)

    return build(template)


def to_f64(tree):
    """float64 copies of every float array leaf; integer arrays copied; anything else (compile-time
    Python values: floats, strings, functions) kept as it is."""
    def conv(a):
        if not isinstance(a, (np.ndarray, np.generic)):
            return a
        a = np.asarray(a)
        return a.astype(np.float64) if a.dtype.kind == "f" else a.copy()

    return unflatten(tree, [conv(a) for a in flatten(tree)])


# ---------------------------------------------------------------- oracles


def coordinate_difference(f, leaf, j):
    """float64 central difference of `f()` along coordinate `j` of `leaf` (changed in place, then restored)."""
    x = leaf[j]
    h = FD_REL_STEP * max(1.0, abs(x))
    leaf[j] = x + h
    fp = f()
    leaf[j] = x - h
    fm = f()
    leaf[j] = x
    return (fp - fm) / (2 * h)


def finite_differences(loss, args, nums, gradients_to_check, rng):
    """Central differences of `loss(*args)` (float64) w.r.t. the leaves of `args[i]` for i in `nums`.

    Returns a list of (leaf number, what, reference, computed) to compare: one per
    leaf (every coordinate) or, for large leaves, one per random direction
    (reference: the directional derivative, computed: <gradient, direction>).
    """
    args = [to_f64(a) for a in args]
    leaves = [leaf for i in nums for leaf in flatten(args[i])]
    assert len(leaves) == len(gradients_to_check), (
        f"{len(gradients_to_check)} gradient results for {len(leaves)} differentiated leaves")

    def f():
        with np.errstate(all="ignore"):
            v = loss(*args)
        v = np.asarray(v)
        assert v.size == 1 and v.dtype.kind == "f", f"the loss returns {v.dtype}{v.shape}, not a float scalar"
        return float(v.reshape(()))  # a one-element array of any rank, as autograd accepts

    out = []
    for k, (leaf, g) in enumerate(zip(leaves, gradients_to_check)):
        assert isinstance(leaf, np.ndarray) and leaf.dtype == np.float64, f"leaf {k} is not a float tensor"
        if leaf.size <= FD_MAX_ELEMENTS:
            fd = np.zeros(leaf.shape)
            for j in np.ndindex(leaf.shape):
                fd[j] = coordinate_difference(f, leaf, j)
            out.append((k, f"gradient leaf {k}", fd, g))
        else:
            saved = leaf.copy()
            h = FD_REL_STEP * max(1.0, float(np.abs(saved).max()))
            for d in range(FD_DIRECTIONS):
                v = rng.standard_normal(leaf.shape)
                v /= np.linalg.norm(v)
                leaf[...] = saved + h * v
                fp = f()
                leaf[...] = saved - h * v
                fm = f()
                leaf[...] = saved
                dd = (fp - fm) / (2 * h)
                out.append((k, f"gradient leaf {k} along random direction {d}", np.asarray(dd),
                            np.asarray(np.sum(np.asarray(g, np.float64) * v))))
            # and a few coordinates: the largest gradient entries and random ones
            flat_g = np.abs(np.asarray(g, np.float64)).ravel()
            coords = list(np.argsort(flat_g)[-FD_COORDINATES:]) + list(rng.integers(0, leaf.size, FD_COORDINATES))
            for c in coords:
                j = np.unravel_index(int(c), leaf.shape)
                out.append((k, f"gradient leaf {k} at {tuple(map(int, j))}", np.asarray(coordinate_difference(f, leaf, j)),
                            np.asarray(g)[j]))
    return out


def close(actual, expected, dtype, tol, what):
    """`actual` within (rtol, atol * magnitude of `expected`) of `expected`."""
    rtol, atol = tol[np.dtype(dtype)]
    expected = np.asarray(expected, dtype=np.float64)
    scale = max(1.0, float(np.abs(expected).max())) if expected.size else 1.0
    np.testing.assert_allclose(np.asarray(actual, np.float64), expected, rtol=rtol, atol=atol * scale,
                               err_msg=what)


def eager_results(export, inputs):
    with np.errstate(all="ignore"):
        out = export(*[np.array(a, copy=True) for a in inputs])
    return [np.asarray(r) for r in flatten(out if isinstance(out, tuple) else (out,))]


def compiled_results(fn, inputs):
    got = fn(*inputs)
    return list(got) if isinstance(got, tuple) else [got]


def check_against_eager(got, expected, what):
    assert len(got) == len(expected), f"{what}: {len(got)} results, the eager run gives {len(expected)}"
    for k, (a, e) in enumerate(zip(got, expected)):
        w = f"{what}, result {k} vs eager (autograd)"
        assert isinstance(a, np.ndarray), f"{w}: got {type(a).__name__}"
        assert a.shape == e.shape, f"{w}: shape {a.shape}, eager gives {e.shape}"
        if e.dtype.kind == "f":
            assert a.dtype == e.dtype, f"{w}: dtype {a.dtype}, eager gives {e.dtype}"
            close(a, e, a.dtype, TOL, w)
        else:
            assert a.dtype == e.dtype, f"{w}: dtype {a.dtype}, eager gives {e.dtype}"
            np.testing.assert_array_equal(a, e, err_msg=w)


def check_against_fd(module, spec, inputs, got, what, rng):
    loss_name, argnums, *rest = spec
    options = rest[0] if rest else {}
    unknown = set(options) - {"value", "args", "view", "eager"}
    assert not unknown, f"unknown AGC_GRAD_CHECKS options {unknown}"
    loss = getattr(module, loss_name)
    args = list(getattr(module, options["args"])(*inputs) if "args" in options else inputs)
    nums = [argnums] if isinstance(argnums, int) else list(argnums)
    nums = [i % len(args) for i in nums]
    results = list(getattr(module, options["view"])(inputs, tuple(got)) if "view" in options else got)
    if options.get("value"):
        value, results = results[0], results[1:]
        with np.errstate(all="ignore"):
            ref = np.asarray(loss(*[to_f64(a) for a in args]))
        close(value, ref, np.asarray(value).dtype, TOL, f"{what}: the value vs {loss_name} in float64")
    diff_leaves = [leaf for i in nums for leaf in flatten(args[i])]
    assert len(results) == len(diff_leaves), (
        f"{what}: {len(results)} gradient results for {len(diff_leaves)} differentiated leaves")
    for k, (g, leaf) in enumerate(zip(results, diff_leaves)):
        leaf = np.asarray(leaf)
        assert g.shape == leaf.shape, f"{what}: gradient {k} has shape {g.shape}, its parameter {leaf.shape}"
        assert g.dtype == leaf.dtype, f"{what}: gradient {k} has dtype {g.dtype}, its parameter {leaf.dtype}"
    for k, name, ref, computed in finite_differences(loss, args, nums, results, rng):
        close(computed, ref, np.asarray(diff_leaves[k]).dtype, FD_TOL,
              f"{what}: {name} vs float64 finite differences of {loss_name}")


def input_sets(module, export, name, rng):
    hook = getattr(module, "agc_grad_inputs", None)
    if hook is not None:
        sets = hook(name, rng)
        if sets is not None:
            return [[np.asarray(a) for a in s] for s in sets]
    symbolic = any(spec.symbols for _, spec in export.params)
    sets = []
    for sizes in (harness.DEFAULT_DIM_SIZES, harness.SECOND_DIM_SIZES)[: 2 if symbolic else 1]:
        sets.append(harness.make_inputs(module, export, rng, harness.dim_sizes(module, sizes)))
    return sets


# ---------------------------------------------------------------- the programs


@pytest.mark.parametrize("model_path", MODULE_CASES)
def test_module_follows_the_convention(model_path):
    module = _module(model_path)
    assert (module.__doc__ or "").strip(), f"{model_path.name} has no docstring naming its theme"
    checks = getattr(module, "AGC_GRAD_CHECKS", None)
    assert isinstance(checks, dict) and checks, f"{model_path.name} defines no AGC_GRAD_CHECKS"
    dedicated = set(getattr(module, "AGC_GRAD_DEDICATED", ()))
    names = set(harness.exports(module))
    assert names == set(checks) | dedicated, (
        f"exports {sorted(names)} vs AGC_GRAD_CHECKS {sorted(checks)} + AGC_GRAD_DEDICATED {sorted(dedicated)}")
    assert any(spec is not None for spec in checks.values()), "no export is checked by finite differences"
    for name, spec in checks.items():
        if spec is not None:
            assert callable(getattr(module, spec[0], None)), f"{name}: no function {spec[0]!r} in the module"
    assert "agc.grad" in model_path.read_text() or "agc.value_and_grad" in model_path.read_text()


@pytest.mark.parametrize("model_path, export_name", CASES)
def test_gradient(model_path, export_name, builds, tmp_path):
    module = _module(model_path)
    assert export_name is not None, f"{model_path.name} has no AGC_GRAD_CHECKS"
    if harness.known_unsupported(module, model_path, builds.binary, tmp_path):
        return
    export = harness.exports(module)[export_name]
    spec = module.AGC_GRAD_CHECKS[export_name]
    lib = load(builds, model_path)
    assert export_name in lib.functions, f"library exports {sorted(lib.functions)}, not {export_name}"
    fn = lib.functions[export_name]
    rng = harness.rng_for("grad", model_path.stem, export_name)
    for k, inputs in enumerate(input_sets(module, export, export_name, rng)):
        what = f"{export_name}, input set {k} (shapes {[a.shape for a in inputs]})"
        got = compiled_results(fn, inputs)
        options = spec[2] if spec is not None and len(spec) > 2 else {}
        eager = getattr(module, options["eager"]) if "eager" in options else export
        check_against_eager(got, eager_results(eager, inputs), what)
        if spec is not None:
            check_against_fd(module, spec, inputs, got, what, rng)


# ---------------------------------------------------------------- softmax regression (1000 SGD steps)

SOFTMAX = GRAD_MODELS / "softmax_regression_sgd.py"
SOFTMAX_PACKED = GRAD_MODELS / "softmax_regression_sgd_packed.py"
SOFTMAX_MODELS = [pytest.param(SOFTMAX, id="softmax_regression_sgd"),
                  pytest.param(SOFTMAX_PACKED, id="softmax_regression_sgd_packed")]


def _mnist_like(n, seed=0):
    """A synthetic, learnable 10-class problem shaped like MNIST: 784 features in [0, 1]."""
    rng = np.random.default_rng(seed)
    centers = rng.random((10, 784)) < 0.2
    y = rng.integers(0, 10, size=n).astype(np.int64)
    X = np.clip(centers[y] * rng.uniform(0.5, 1.0, (n, 784)) + rng.normal(0, 0.15, (n, 784)), 0, 1)
    return X.astype(np.float32), y


def _softmax_case(builds, model_path, name, n, extra=()):
    module = _module(model_path)
    fn = load(builds, model_path).functions[name]
    export = harness.exports(module)[name]
    X, y = _mnist_like(n)
    rng = np.random.default_rng(1)
    W = (0.01 * rng.standard_normal((784, 10))).astype(np.float32)
    b = np.zeros(10, np.float32)
    inputs = [X, y, W, b, *extra]
    t0 = time.perf_counter()
    got = compiled_results(fn, inputs)
    t_compiled = time.perf_counter() - t0
    t0 = time.perf_counter()
    expected = eager_results(export, inputs)
    t_eager = time.perf_counter() - t0
    print(f"\n{model_path.stem}.{name} (N={n}): compiled {t_compiled:.2f} s, eager (autograd) {t_eager:.2f} s")
    assert len(got) == len(expected) == 2
    for k, (a, e) in enumerate(zip(got, expected)):
        assert a.dtype == e.dtype == np.float32 and a.shape == e.shape
        np.testing.assert_allclose(a, e, rtol=1e-3, atol=1e-5 * max(1.0, float(np.abs(e).max())),
                                   err_msg=f"{name}: result {k} (W, b) vs the eager loop")
    # The loop learned something: the final parameters classify the training data.
    acc = np.mean(np.argmax(X @ got[0] + got[1], axis=1) == y)
    assert acc > 0.9, f"{name}: training accuracy {acc:.3f} after SGD"


@pytest.mark.parametrize("model_path", SOFTMAX_MODELS)
def test_softmax_regression_200_steps(model_path, builds):
    """CI size: the same loop, 10,000 examples, 200 SGD steps (run-time count)."""
    _softmax_case(builds, model_path, "train_sgd_steps", 10_000, [np.int64(200)])


@pytest.mark.parametrize("model_path", SOFTMAX_MODELS)
def test_softmax_regression_1000_steps(model_path, builds):
    """1000 SGD steps (20 epochs), lr 0.1, batch 200 over 10,000 examples in one exported call.

    About 4 s compiled and 3 s eager on 2 cores (`pytest -s` prints both), so it runs in CI.
    """
    module = _module(model_path)
    assert module.EPOCHS * 10_000 // module.BATCH == 1000
    _softmax_case(builds, model_path, "train_sgd", 10_000)


# ---------------------------------------------------------------- TreeLSTM

TREE_LSTM = GRAD_MODELS / "tree_lstm.py"


@pytest.mark.parametrize("model_path", [pytest.param(TREE_LSTM, id="tree_lstm")])
def test_tree_lstm_train_step(model_path, builds):
    """train_step on 20 random trees (1 to 16 leaves, random shapes), training as it goes.

    Per tree: the loss and updated parameters vs the eager step; the gradients themselves (from the
    compiled loss_grad, and recovered from the update) vs autograd's; on a few trees, finite differences.
    """
    module = _module(TREE_LSTM)
    lib = load(builds, TREE_LSTM)
    step, grad = lib.functions["train_step"], lib.functions["loss_grad"]
    exports = harness.exports(module)
    rng = np.random.default_rng(2024)
    params = module.init_params(rng)
    for t, leaves in enumerate([1, 2, 16] + [None] * 17):  # 20 trees: the smallest, then random shapes and sizes
        left, right, word, label = module.random_tree(rng, leaves)
        inputs = [*params, left, right, word, label]
        what = f"tree {t} ({len(left)} nodes)"
        got = compiled_results(step, inputs)
        expected = eager_results(exports["train_step"], inputs)
        check_against_eager(got, expected, f"train_step on {what}")
        g_eager = eager_results(exports["loss_grad"], inputs)
        check_against_eager(compiled_results(grad, inputs), g_eager, f"loss_grad on {what}")
        recovered = module.train_step_view(inputs, tuple(got))[1:]
        for k, (a, e) in enumerate(zip(recovered, g_eager)):
            close(a, e, np.float32, TOL, f"train_step on {what}: gradient {k} recovered from the update vs autograd")
        if t < 3:  # finite differences along random directions of every parameter
            check_against_fd(module, module.AGC_GRAD_CHECKS_TRAIN_STEP, inputs, got, f"train_step on {what}", rng)
        params = got[1:]  # keep training: later trees see updated parameters


# ---------------------------------------------------------------- leaks and deep loops

LEAKS = GRAD_MODELS / "leak_check.py"
DEEP = GRAD_MODELS / "deep_loop.py"

_LEAK_SCRIPT = textwrap.dedent("""
    import os, sys
    import numpy as np
    sys.path.insert(0, sys.argv[1])
    import agc
    lib = agc.load(sys.argv[2])
    page = os.sysconf("SC_PAGE_SIZE")
    def rss():
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * page
    rng = np.random.default_rng(0)
    w = rng.standard_normal((64, 64)).astype(np.float32)
    x = rng.standard_normal((16, 64)).astype(np.float32)
    xs = rng.standard_normal((12, 64)).astype(np.float32)
    left = np.array([1, 3, -1, 5, -1, -1, -1], np.int64)  # a root, two inner nodes, four leaves
    right = np.array([2, 4, -1, 6, -1, -1, -1], np.int64)
    leaves = rng.standard_normal((7, 64)).astype(np.float32)
    calls = [lambda: lib.mlp_grad(w, x), lambda: lib.loop_grad(w, xs),
             lambda: lib.tree_grad(0.1 * w, leaves, left, right)]
    for c in calls:
        for _ in range(500):
            c()
    before = rss()
    for i in range(10_000):
        calls[i % 3]()
    after = rss()
    print(before, after)
""")


@pytest.mark.parametrize("model_path", [pytest.param(LEAKS, id="leak_check")])
def test_no_leak_over_10000_gradient_calls(model_path, builds):
    so = builds.get(LEAKS)
    proc = subprocess.run([sys.executable, "-c", _LEAK_SCRIPT, str(harness.REPO / "python"), str(so)],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    before, after = map(int, proc.stdout.split())
    # Each call returns a 64x64 float32 gradient (16 KiB): a leaked result alone would add 160 MiB;
    # 2 MiB is about 200 bytes a call (measured growth without a leak: about 100 KiB, also over 40,000 calls).
    assert after - before < 2 << 20, f"RSS grew by {(after - before) / 2**20:.1f} MiB over 10,000 gradient calls"


def _running_sum_and_tangents(w, c, n):
    """s_n of s_t = c s_{t-1} + 1e-3 sin(t w) and its exact derivatives by the tangent recurrences (Python floats)."""
    s = ds_dw = ds_dc = 0.0
    for t in range(n):
        ds_dw = ds_dw * c + 1e-3 * t * math.cos(t * w)
        ds_dc = ds_dc * c + s
        s = s * c + 1e-3 * math.sin(t * w)
    return s, ds_dw, ds_dc


@pytest.mark.parametrize("model_path", [pytest.param(DEEP, id="deep_loop")])
def test_gradient_through_100000_iterations(model_path, builds):
    """100,000 iterations of a staged loop inside the differentiated function, against closed forms.

    (Eager autograd takes about 30 s for 100,000 iterations, so it is the oracle only in
    test_gradient[deep_loop::*], up to 1,000 iterations; here the references are exact.)
    """
    lib = load(builds, DEEP)
    n = 100_000
    a = 1e-5
    x = np.linspace(-1.0, 2.0, 5)
    # d/da sum(x * (1 + a)**n) = n (1 + a)**(n-1) sum(x);  d/dx = (1 + a)**n
    value, ga, gx = lib.product_loop_grad(np.float64(a), x, np.int64(n))
    np.testing.assert_allclose(value, (1 + a) ** n * np.sum(x), rtol=1e-9)
    np.testing.assert_allclose(ga, n * (1 + a) ** (n - 1) * np.sum(x), rtol=1e-8)
    np.testing.assert_allclose(gx, np.full(5, (1 + a) ** n), rtol=1e-9)
    # The running sum: derivatives by the tangent recurrences, and by central differences.
    w, c = 0.37, 0.99999
    gw, gc = lib.running_sum_grad(np.float64(w), np.float64(c), np.int64(n))
    _, dw, dc = _running_sum_and_tangents(w, c, n)
    np.testing.assert_allclose([gw, gc], [dw, dc], rtol=1e-8)
    h = 1e-9  # s is a degree-100,000 function of c: larger steps make the central difference inexact
    fd_w = (_running_sum_and_tangents(w + h, c, n)[0] - _running_sum_and_tangents(w - h, c, n)[0]) / (2 * h)
    fd_c = (_running_sum_and_tangents(w, c + h, n)[0] - _running_sum_and_tangents(w, c - h, n)[0]) / (2 * h)
    np.testing.assert_allclose([gw, gc], [fd_w, fd_c], rtol=1e-4)
