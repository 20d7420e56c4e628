"""Gradients through Python state changed inside a staged `while`: an object's attribute updated
by a method, a dict entry accumulating the loss, and a list appended each iteration (a growing
staged list), then stacked and reversed (float64)."""
import agc
import agc.numpy as np


class Cell:
    def __init__(self, w):
        self.w = w
        self.h = np.zeros(3)

    def step(self, x):
        self.h = np.tanh(self.w @ (x + self.h))


def loss(w, xs):
    cell = Cell(w)
    state = {"acc": 0.0}
    outs = []
    i = 0
    while i < xs.shape[0]:
        cell.step(xs[i])
        state["acc"] = state["acc"] + np.sum(cell.h ** 2)
        outs.append(cell.h)
        i += 1
    o = np.stack(outs)
    return state["acc"] + np.sum(o * o[::-1])


@agc.export
def stateful_grad(w: agc.f64[3, 3], xs: agc.f64["T", 3]):
    return agc.grad(loss, argnums=(0, 1))(w, xs)


AGC_GRAD_CHECKS = {"stateful_grad": ("loss", (0, 1))}


def agc_grad_inputs(name, rng):
    return [[0.5 * rng.standard_normal((3, 3)), rng.standard_normal((t, 3))] for t in (1, 4, 11)]
