"""The corpus itself, without the compiler: every model imports and every export runs under CPython/numpy."""

import numpy as np
import pytest

import harness


@pytest.mark.parametrize("model_path", harness.model_paths(), ids=lambda p: p.stem)
def test_model_runs_eagerly(model_path):
    module = harness.import_model(model_path)
    assert module.__doc__, "each model states its theme in a docstring"
    exports = harness.exports(module)
    assert exports, "a model defines at least one @agc.export"
    ran = set()
    for sizes in (harness.DEFAULT_DIM_SIZES, harness.SECOND_DIM_SIZES):
        dims = harness.dim_sizes(module, sizes)
        for name, export in exports.items():
            inputs = harness.make_inputs(module, export, harness.rng_for(model_path.stem, name), dims)
            assert len(inputs) == len(export.params), f"{name}: the hook gives {len(inputs)} inputs"
            harness.bind_dims(export, inputs)
            # No model relies on inf/nan or division by zero unless it says so.
            fp = "ignore" if getattr(module, "AGC_EXPECTS_FP_EXCEPTIONS", False) else "raise"
            with np.errstate(all=fp):
                try:
                    results = harness.eager(export, inputs)
                except harness.EAGER_ERRORS:  # a run-time error the library must report too
                    continue
            ran.add(name)
            for r in results:
                assert r.dtype in harness.SUPPORTED_DTYPES, f"{name}: result dtype {r.dtype}"
    if not getattr(module, "AGC_TEST_NUMPY_RAISES", False):
        assert ran == set(exports), f"numpy raises for every input of {sorted(set(exports) - ran)}"


def test_corpus_size():
    assert len(harness.model_paths()) >= 45
