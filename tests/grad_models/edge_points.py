"""Gradients where the textbook formula divides by zero or picks a branch, with autograd's
values: np.logaddexp at equal arguments (1/2 each), np.std over one element (0, where
sqrt'(0) * 0 is NaN), static and run-time sizes and ddof, and the second derivative of
x ** y at x == 0 (0 for y == 0, where 0 * x ** -2 is NaN)."""
import agc
import agc.numpy as np


def logaddexp_loss(x, y):
    return np.sum(np.logaddexp(x, y) * np.arange(1, 5))


@agc.export
def logaddexp_grad(x: agc.f32[4], y: agc.f32[4]):
    return agc.grad(logaddexp_loss, argnums=(0, 1))(x, y)


def std_of(x):
    return np.std(x)


@agc.export
def std_one_element_grad(x: agc.f32[1]):
    return agc.value_and_grad(np.std)(x)  # np.std itself, as std_of calls it


def std_loss(x):
    # axis 1 may have one element; the whole array too (one row of one column)
    return np.sum(np.std(x, axis=1) * 2.0) + np.std(x) + np.sum(np.std(x, axis=0, keepdims=True))


@agc.export
def std_axes_grad(x: agc.f64["B", "C"]):
    return agc.value_and_grad(std_loss)(x)


def std_ddof_loss(x):
    return np.std(x, ddof=1) + np.var(x) * 0.5


@agc.export
def std_ddof_grad(x: agc.f64["N"]):
    return agc.value_and_grad(std_ddof_loss)(x)


def pow_loss(x):
    return np.sum(x ** 0.0) + np.sum(x ** 1.0) * 2.0 + np.sum(x ** 2.0) + np.sum(x ** 3)


def pow_slope_sum(x):
    return np.sum(agc.grad(pow_loss)(x) * np.arange(1, 6))


@agc.export
def pow_second_derivative(x: agc.f64[5]):
    return agc.grad(pow_slope_sum)(x)


AGC_GRAD_CHECKS = {
    "logaddexp_grad": ("logaddexp_loss", (0, 1)),
    "std_one_element_grad": ("std_of", 0, {"value": True}),
    "std_axes_grad": ("std_loss", 0, {"value": True}),
    # ddof=1 over one element is NaN (numpy's value), which finite differences cannot check
    "std_ddof_grad": None,
    "pow_second_derivative": ("pow_slope_sum", 0),
}


def agc_grad_inputs(name, rng):
    f32 = lambda a: np.asarray(a, np.float32)
    if name == "logaddexp_grad":
        x = f32([0.5, -1.0, 2.0, 0.0])
        return [[x, x.copy()], [x, f32([0.5, 1.0, -3.0, 0.0])]]  # equal, then mixed
    if name == "std_one_element_grad":
        return [[f32([3.0])], [f32([-0.25])]]
    if name == "std_axes_grad":
        return [[rng.standard_normal((b, c))] for b, c in ((1, 1), (1, 3), (3, 1), (2, 3))]
    if name == "std_ddof_grad":
        return [[rng.standard_normal(n)] for n in (1, 2, 4)]
    return [[np.array([0.0, 0.0, 0.5, -1.0, 2.0])]]
