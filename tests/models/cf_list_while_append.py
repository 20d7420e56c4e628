"""Appending in a staged `while` with a data-dependent trip count: the stacked length varies with the input
(20 items from 1e6: the list's buffer grows past its initial room)."""
import agc
import agc.numpy as np


@agc.export
def halving_trace(x: agc.f64[()]):
    trace = []
    while x > 1:
        x = x / 2
        trace.append(x)
    trace.append(x)
    return np.stack(trace)


@agc.export(name="halving_trace_b")
def halving_trace_b(x: agc.f64[()]):
    return halving_trace(x)


def agc_test_inputs(export_name, rng, dims):
    return [np.float64(1e6 if export_name == "halving_trace" else 0.5)]
