"""A chain of 80 `elif`s on a staged value: the IR nests 80 `if`s, which the middle end cuts into
functions every 32 levels (`outline-deep-regions`) to keep the build time linear in the chain."""
import agc
import numpy as np


@agc.export
def bucket(x: agc.f32["N"]):
    s = np.sum(x)
    if s > 40.0:
        y = x * 0.0
    elif s > 39.0:
        y = x * 1.0 + 1.0
    elif s > 38.0:
        y = x * 2.0 + 2.0
    elif s > 37.0:
        y = x * 3.0 + 3.0
    elif s > 36.0:
        y = x * 4.0 + 4.0
    elif s > 35.0:
        y = x * 5.0 + 5.0
    elif s > 34.0:
        y = x * 6.0 + 6.0
    elif s > 33.0:
        y = x * 7.0 + 0.0
    elif s > 32.0:
        y = x * 8.0 + 1.0
    elif s > 31.0:
        y = x * 9.0 + 2.0
    elif s > 30.0:
        y = x * 10.0 + 3.0
    elif s > 29.0:
        y = x * 11.0 + 4.0
    elif s > 28.0:
        y = x * 12.0 + 5.0
    elif s > 27.0:
        y = x * 13.0 + 6.0
    elif s > 26.0:
        y = x * 14.0 + 0.0
    elif s > 25.0:
        y = x * 15.0 + 1.0
    elif s > 24.0:
        y = x * 16.0 + 2.0
    elif s > 23.0:
        y = x * 17.0 + 3.0
    elif s > 22.0:
        y = x * 18.0 + 4.0
    elif s > 21.0:
        y = x * 19.0 + 5.0
    elif s > 20.0:
        y = x * 20.0 + 6.0
    elif s > 19.0:
        y = x * 21.0 + 0.0
    elif s > 18.0:
        y = x * 22.0 + 1.0
    elif s > 17.0:
        y = x * 23.0 + 2.0
    elif s > 16.0:
        y = x * 24.0 + 3.0
    elif s > 15.0:
        y = x * 25.0 + 4.0
    elif s > 14.0:
        y = x * 26.0 + 5.0
    elif s > 13.0:
        y = x * 27.0 + 6.0
    elif s > 12.0:
        y = x * 28.0 + 0.0
    elif s > 11.0:
        y = x * 29.0 + 1.0
    elif s > 10.0:
        y = x * 30.0 + 2.0
    elif s > 9.0:
        y = x * 31.0 + 3.0
    elif s > 8.0:
        y = x * 32.0 + 4.0
    elif s > 7.0:
        y = x * 33.0 + 5.0
    elif s > 6.0:
        y = x * 34.0 + 6.0
    elif s > 5.0:
        y = x * 35.0 + 0.0
    elif s > 4.0:
        y = x * 36.0 + 1.0
    elif s > 3.0:
        y = x * 37.0 + 2.0
    elif s > 2.0:
        y = x * 38.0 + 3.0
    elif s > 1.0:
        y = x * 39.0 + 4.0
    elif s > 0.0:
        y = x * 40.0 + 5.0
    elif s > -1.0:
        y = x * 41.0 + 6.0
    elif s > -2.0:
        y = x * 42.0 + 0.0
    elif s > -3.0:
        y = x * 43.0 + 1.0
    elif s > -4.0:
        y = x * 44.0 + 2.0
    elif s > -5.0:
        y = x * 45.0 + 3.0
    elif s > -6.0:
        y = x * 46.0 + 4.0
    elif s > -7.0:
        y = x * 47.0 + 5.0
    elif s > -8.0:
        y = x * 48.0 + 6.0
    elif s > -9.0:
        y = x * 49.0 + 0.0
    elif s > -10.0:
        y = x * 50.0 + 1.0
    elif s > -11.0:
        y = x * 51.0 + 2.0
    elif s > -12.0:
        y = x * 52.0 + 3.0
    elif s > -13.0:
        y = x * 53.0 + 4.0
    elif s > -14.0:
        y = x * 54.0 + 5.0
    elif s > -15.0:
        y = x * 55.0 + 6.0
    elif s > -16.0:
        y = x * 56.0 + 0.0
    elif s > -17.0:
        y = x * 57.0 + 1.0
    elif s > -18.0:
        y = x * 58.0 + 2.0
    elif s > -19.0:
        y = x * 59.0 + 3.0
    elif s > -20.0:
        y = x * 60.0 + 4.0
    elif s > -21.0:
        y = x * 61.0 + 5.0
    elif s > -22.0:
        y = x * 62.0 + 6.0
    elif s > -23.0:
        y = x * 63.0 + 0.0
    elif s > -24.0:
        y = x * 64.0 + 1.0
    elif s > -25.0:
        y = x * 65.0 + 2.0
    elif s > -26.0:
        y = x * 66.0 + 3.0
    elif s > -27.0:
        y = x * 67.0 + 4.0
    elif s > -28.0:
        y = x * 68.0 + 5.0
    elif s > -29.0:
        y = x * 69.0 + 6.0
    elif s > -30.0:
        y = x * 70.0 + 0.0
    elif s > -31.0:
        y = x * 71.0 + 1.0
    elif s > -32.0:
        y = x * 72.0 + 2.0
    elif s > -33.0:
        y = x * 73.0 + 3.0
    elif s > -34.0:
        y = x * 74.0 + 4.0
    elif s > -35.0:
        y = x * 75.0 + 5.0
    elif s > -36.0:
        y = x * 76.0 + 6.0
    elif s > -37.0:
        y = x * 77.0 + 0.0
    elif s > -38.0:
        y = x * 78.0 + 1.0
    elif s > -39.0:
        y = x * 79.0 + 2.0
    else:
        y = -x
    return y
