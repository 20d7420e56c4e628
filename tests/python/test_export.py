"""@agc.export in eager mode: the function is unchanged; exports are recorded on it."""

import types

import numpy as np
import pytest

import agc


def test_bare_decorator_returns_the_function():
    def f(x: agc.f32[3]):
        return x * 2

    g = agc.export(f)
    assert g is f
    assert f.__agc_exports__ == [("f", {})]
    np.testing.assert_array_equal(f(np.ones(3)), 2 * np.ones(3))


def test_named_and_specialised():
    @agc.export(name="fast", training=False)
    def predict(x: agc.f32["B", 2], training=True):
        return x if training else -x

    assert predict.__agc_exports__ == [agc.Export("fast", {"training": False})]
    assert predict.__name__ == "predict"
    # an eager call is the plain function: its own defaults apply
    np.testing.assert_array_equal(predict(np.ones((1, 2))), np.ones((1, 2)))


def test_stacked_decorators_in_source_order():
    @agc.export
    @agc.export(name="train", training=True)
    @agc.export(name="infer", training=False)
    def step(x: agc.f32[2], training=False):
        return x

    assert [e.name for e in step.__agc_exports__] == ["step", "train", "infer"]
    assert [e.static_kwargs for e in step.__agc_exports__] == [{}, {"training": True}, {"training": False}]


def test_unknown_static_kwarg_and_bad_use():
    with pytest.raises(TypeError, match="no keyword parameter 'mode'"):
        @agc.export(mode="x")
        def f(x: agc.f32[2]):
            return x
    with pytest.raises(TypeError):
        agc.export("name")
    with pytest.raises(ValueError):
        agc.export(name="not an identifier")(lambda x: x)


def test_exports_of_module_applies_static_kwargs():
    module = types.ModuleType("m")
    exec(
        "import agc\n"
        "@agc.export(name='double', k=2)\n"
        "@agc.export(name='triple', k=3)\n"
        "def scale(x: agc.f32['N'], k=1):\n"
        "    return x * k\n"
        "def helper(x):\n"
        "    return x\n"
        "@agc.export\n"
        "def ident(x: agc.i32[()]):\n"
        "    return x\n",
        module.__dict__,
    )
    found = agc.exports_of(module)
    assert [e.name for e in found] == ["double", "triple", "ident"]
    double = found[0]
    assert double.params == [("x", agc.f32["N"])]
    np.testing.assert_array_equal(double(np.arange(3.0)), np.arange(3.0) * 2)
    assert found[2].params == [("x", agc.i32[()])]


def test_unannotated_parameter_is_reported():
    def f(x: agc.f32[2], y):
        return x

    agc.export(f)
    (exp,) = [agc.ExportedFunction(f, e) for e in f.__agc_exports__]
    with pytest.raises(TypeError, match="'y'"):
        exp.params


def test_agc_numpy_is_numpy():
    import agc.numpy as anp

    assert anp.float32 is np.float32
    assert anp.sum is np.sum
    assert anp.linalg is np.linalg
    assert anp.random is np.random
    assert "matmul" in dir(anp)
    x = anp.arange(6, dtype=anp.float32).reshape(2, 3)
    assert type(x) is np.ndarray and (x @ x.T).dtype == np.float32
    assert issubclass(agc.Error, Exception)
