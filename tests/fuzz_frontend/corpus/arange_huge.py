# fuzz_frontend: np.arange(2**31) was folded into a 16 GB constant (the compiler aborted:
# "memory allocation failed"), so was np.linspace(0, 1, 2**31); aranges and linspaces over
# 10**7 items are computed in the library now.
import agc
import agc.numpy as np


@agc.export
def f(x: agc.f32[3]):
    return np.sum(np.arange(2 ** 31)) + x, np.linspace(0, 1, 2 ** 31)[:3] + x
