"""Differentiated functions that return a one-element array instead of a scalar (shape (1,),
(1, 1), (1, 1, 1)), which autograd accepts: the gradient is that of the element, and
value_and_grad's value keeps the array's shape; also as the inner function of a second
derivative."""
import agc
import agc.numpy as np


def sum_keepdims(x):
    return np.sum(x * x, keepdims=True)


@agc.export
def keepdims_grad(x: agc.f32[3]):
    return agc.grad(sum_keepdims)(x)


def row_times_column(x, w):
    return np.tanh(x[None, :] @ w)


@agc.export
def matrix_value_and_grad(x: agc.f64[3], w: agc.f64[3, 1]):
    return agc.value_and_grad(row_times_column, argnums=(0, 1))(x, w)


def rank3(x):
    return np.reshape(np.sum(np.sin(x) * x), (1, 1, 1))


@agc.export
def rank3_grad(x: agc.f32["N"]):
    return agc.grad(rank3)(x)


def slope(x):
    return np.sum(agc.grad(lambda y: np.sin(np.sum(y ** 3, keepdims=True)))(x)).reshape(1, 1)


@agc.export
def second_derivative(x: agc.f64[3]):
    return agc.grad(slope)(x)


AGC_GRAD_CHECKS = {
    "keepdims_grad": ("sum_keepdims", 0),
    "matrix_value_and_grad": ("row_times_column", (0, 1), {"value": True}),
    "rank3_grad": ("rank3", 0),
    "second_derivative": ("slope", 0),
}


def agc_grad_inputs(name, rng):
    if name == "second_derivative":
        return [[rng.standard_normal(3) * 0.5]]
    return None
