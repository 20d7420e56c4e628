"""Every export of every model in tests/models: compiled library vs the eager CPython/numpy result."""

import inspect

import numpy as np
import pytest

import agc
import harness


def _cases():
    cases = []
    for path in harness.model_paths():
        try:
            names = list(harness.exports(harness.import_model(path))) or [None]
        except Exception:  # reported by the test itself, with the traceback
            names = [None]
        cases += [pytest.param(path, name, id=f"{path.stem}::{name}") for name in names]
    return cases


CASES = _cases()
_libraries = {}


def _load(builds, model_path):
    so = builds.get(model_path)
    if so not in _libraries:
        _libraries[so] = agc.load(so)
    return _libraries[so]


def _export(model_path, export_name):
    module = harness.import_model(model_path)
    assert export_name is not None, f"{model_path.name} defines no @agc.export function"
    return module, harness.exports(module)[export_name]


@pytest.mark.parametrize("model_path, export_name", CASES)
def test_matches_numpy(model_path, export_name, builds, tmp_path):
    module, export = _export(model_path, export_name)
    if harness.known_unsupported(module, model_path, builds.binary, tmp_path):
        return
    lib = _load(builds, model_path)
    assert export_name in lib.functions, f"library exports {sorted(lib.functions)}, not {export_name}"
    fn = lib.functions[export_name]
    if getattr(module, "AGC_TEST_ISOLATE", False):
        fn = harness.IsolatedFunction(builds.get(model_path), export_name, tmp_path)
    symbolic = any(spec.symbols for _, spec in export.params)
    for k, sizes in enumerate((harness.DEFAULT_DIM_SIZES, harness.SECOND_DIM_SIZES)[: 2 if symbolic else 1]):
        dims = harness.dim_sizes(module, sizes)
        inputs = harness.make_inputs(module, export, harness.rng_for(model_path.stem, export_name, k), dims)
        harness.check_call(fn, export, inputs, f"{export_name} with dims {dims}")


@pytest.mark.parametrize("model_path, export_name", CASES)
def test_metadata(model_path, export_name, builds, tmp_path):
    module, export = _export(model_path, export_name)
    if harness.known_unsupported(module, model_path, builds.binary, tmp_path):
        return
    lib = _load(builds, model_path)
    assert lib.metadata["module"] == lib.name == model_path.stem
    assert sorted(lib.functions) == sorted(harness.exports(module)), "exported function names"
    meta = lib.functions[export_name].meta
    params = [(p["name"], np.dtype(p["dtype"]), tuple(p["shape"])) for p in meta["params"]]
    assert params == [(n, s.dtype, s.shape) for n, s in export.params], "parameters in the metadata"
    doc = inspect.getdoc(export.fn) or ""
    assert inspect.cleandoc(meta.get("doc") or "") == doc, "doc in the metadata"

    inputs = harness.make_inputs(module, export, harness.rng_for(model_path.stem, export_name, 0),
                                 harness.dim_sizes(module))
    dims = harness.bind_dims(export, inputs)
    try:
        expected = harness.eager(export, inputs)
    except harness.EAGER_ERRORS:
        return  # numpy raises on these inputs: test_matches_numpy checks the library's error instead
    assert len(meta["results"]) == len(expected), "number of results in the metadata"
    for k, (r, e) in enumerate(zip(meta["results"], expected)):
        assert np.dtype(r["dtype"]) == e.dtype, f"result {k} dtype in the metadata"
        assert len(r["shape"]) == e.ndim, f"result {k} rank in the metadata: {r['shape']} vs {e.shape}"
        for d, n in zip(r["shape"], e.shape):
            # A dim is an int, a symbol of the signature, or an expression we do not evaluate.
            if isinstance(d, int) or d in dims:
                assert dims.get(d, d) == n, f"result {k} shape in the metadata: {r['shape']} vs {e.shape}"
