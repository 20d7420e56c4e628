"""One library with agc.f32["B", 784] serves every batch size; calls that contradict the signature raise agc.Error."""

import re

import numpy as np
import pytest

import agc
import harness

MLP = harness.MODELS / "mlp_mnist.py"
SYMBOLIC = harness.MODELS / "symbolic_dims.py"


@pytest.fixture(scope="module")
def mlp(builds):
    module = harness.import_model(MLP)
    return module, harness.exports(module)["predict"], agc.load(builds.get(MLP))


@pytest.mark.parametrize("B", [1, 7, 256])
def test_batch_sizes(mlp, B):
    module, export, lib = mlp
    inputs = harness.make_inputs(module, export, harness.rng_for("symbolic", B), {"B": B})
    harness.check_call(lib.predict, export, inputs, f"predict with B={B}")


def test_empty_batch(mlp):
    module, export, lib = mlp
    inputs = harness.make_inputs(module, export, harness.rng_for("symbolic", 0), {"B": 0})
    harness.check_call(lib.predict, export, inputs, "predict with B=0")


def test_keyword_arguments(mlp):
    module, export, lib = mlp
    inputs = harness.make_inputs(module, export, harness.rng_for("keywords"), {"B": 3})
    names = [p for p, _ in export.params]
    got = lib.predict(**dict(zip(names, inputs)))
    harness.assert_matches(got, harness.eager(export, inputs)[0], "predict called by keyword")


def _inputs(mlp, B=7):
    module, export, _ = mlp
    return harness.make_inputs(module, export, harness.rng_for("bad"), {"B": B})


def _raises(fn, args, *patterns):
    with pytest.raises(agc.Error) as info:
        fn(*args)
    message = str(info.value)
    for p in patterns:
        assert re.search(p, message), f"message {message!r} should match /{p}/"
    return message


def test_wrong_static_dim(mlp):
    x, *rest = _inputs(mlp)
    _raises(mlp[2].predict, [x[:, :783], *rest], r"\bx\b", r"\b783\b", r"\b784\b")


def test_wrong_rank(mlp):
    x, *rest = _inputs(mlp)
    _raises(mlp[2].predict, [x.reshape(-1), *rest], r"\bx\b", r"\b784\b")


def test_wrong_dtype(mlp):
    x, *rest = _inputs(mlp)
    _raises(mlp[2].predict, [x.astype(np.float64), *rest], r"\bx\b", r"float32")


def test_wrong_weight_shape(mlp):
    x, w1, *rest = _inputs(mlp)
    _raises(mlp[2].predict, [x, w1[:, :127], *rest], r"\bw1\b", r"\b127\b")


def test_symbolic_dim_conflict(builds):
    lib = agc.load(builds.get(SYMBOLIC))
    x = np.ones((5, 7), np.float32)
    w = np.ones((6, 3), np.float32)  # D is 7 in x but 6 in w
    b = np.ones(3, np.float32)
    _raises(lib.project, [x, w, b], r"\bD\b", r"\bw\b", r"\b6\b", r"\b7\b")


def test_library_still_works_after_errors(mlp):
    module, export, lib = mlp
    x, *rest = _inputs(mlp, B=2)
    with pytest.raises(agc.Error):
        lib.predict(x[:, :10], *rest)
    harness.check_call(lib.predict, export, [x, *rest], "predict after a failed call")
