# fuzz_frontend (with staticmethod_call.py): a classmethod or property object outside a class is
# not callable; it was an internal error ("no method classmethod for 'function'").
import agc
import agc.numpy as np


@classmethod
def twice(x):
    return x * 2


@agc.export
def f(x: agc.f32[3]):
    return twice(x)
