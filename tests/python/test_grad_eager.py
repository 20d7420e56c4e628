"""Eager agc.grad / agc.value_and_grad (autograd underneath) against finite differences."""

import numpy as np
import pytest

import agc
import agc.numpy as anp

pytest.importorskip("autograd", reason="eager agc.grad needs autograd (pip install autograd)")


def loss(w, x):
    return anp.sum(anp.tanh(x @ w) ** 2)


def central_difference(f, args, i, eps=1e-6):
    base = [np.array(a, dtype=np.float64) for a in args]
    g = np.zeros_like(base[i])
    for idx in np.ndindex(g.shape):
        plus, minus = [a.copy() for a in base], [a.copy() for a in base]
        plus[i][idx] += eps
        minus[i][idx] -= eps
        g[idx] = (f(*plus) - f(*minus)) / (2 * eps)
    return g


def test_grad_matches_finite_differences():
    rng = np.random.default_rng(0)
    w, x = rng.standard_normal((3, 2)), rng.standard_normal((4, 3))
    np.testing.assert_allclose(agc.grad(loss)(w, x), central_difference(loss, (w, x), 0), rtol=1e-6)
    gw, gx = agc.grad(loss, argnums=(0, 1))(w, x)
    np.testing.assert_allclose(gx, central_difference(loss, (w, x), 1), rtol=1e-6)
    value, g = agc.value_and_grad(loss, argnums=1)(w, x)
    assert value == pytest.approx(loss(w, x))
    np.testing.assert_allclose(g, gx)


def helper(v, k):
    return anp.exp(v) * k


def test_grad_through_helpers_closures_and_plain_numpy():
    k = 3.0

    def f(v):
        return np.sum(helper(v, k)) + anp.mean(v ** 2)

    v = np.array([0.1, -0.4, 0.7])
    np.testing.assert_allclose(agc.grad(f)(v), central_difference(f, (v,), 0), rtol=1e-6)


def test_grad_inside_a_function_that_is_itself_eager():
    def train_step(w, x):
        g = agc.grad(loss)(w, x)
        return w - 0.1 * g

    w, x = np.ones((3, 2)) * 0.1, np.arange(12.0).reshape(4, 3) / 10
    expected = w - 0.1 * central_difference(loss, (w, x), 0)
    np.testing.assert_allclose(train_step(w, x), expected, rtol=1e-6)
