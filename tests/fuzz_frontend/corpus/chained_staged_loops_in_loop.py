"""F21 (was O8), from a seed-24 mutant of tests/models/many_list_updates.py: inside a staged loop, 24
unrolled staged inner loops each append to one list. Each inner loop made one-shot
bufferization's buffer-type query through the body three times costlier (minutes); with the
backend's chain breaks it builds in about a second."""
import agc
import agc.numpy as np


@agc.export
def scalar_appends(x: agc.f32["N", 3]):
    vals = []
    for i in range(x.shape[0]):
        for j in range(24):
            for _v in x:
                vals.append(x[i, j % 3] * (j + 1))
    return np.array(vals)
