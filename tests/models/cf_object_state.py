"""Attributes of a Python object assigned inside staged control flow are carried like variables:
an RNN cell object whose hidden state and step count change in a staged loop and a staged `if`."""
import agc
import agc.numpy as np


class Cell:
    def __init__(self, w):
        self.w = w
        self.h = np.zeros(w.shape[0], dtype=np.float32)
        self.steps = 0

    def step(self, x):
        self.h = np.tanh(self.w @ (x + self.h))
        self.steps += 1


@agc.export
def run_cell(xs: agc.f32["T", 4], w: agc.f32[4, 4], limit: agc.f32[()]):
    cell = Cell(w)
    for t in range(xs.shape[0]):
        cell.step(xs[t])
        if np.sum(cell.h) > limit:
            cell.h = cell.h * 0.5
    while cell.steps < 7:
        cell.step(xs[0])
    return cell.h, cell.steps


def agc_test_inputs(export_name, rng, dims):
    if export_name == "absorb_rows":
        return [rng.standard_normal((dims["T"], 3)).astype(np.float32)]
    return [rng.standard_normal((dims["T"], 4)).astype(np.float32),
            (0.6 * rng.standard_normal((4, 4))).astype(np.float32), np.float32(0.2)]


class Accumulator:
    def __init__(self):
        self.total = np.zeros(3, dtype=np.float32)

    def absorb(self, rows):
        i = 0
        while i < rows.shape[0]:                   # `self` is dead after this loop in the method,
            self.total = self.total + rows[i]      # but the caller reads the attribute
            i += 1


@agc.export
def absorb_rows(rows: agc.f32["T", 3]):
    acc = Accumulator()
    acc.absorb(rows)
    return acc.total
