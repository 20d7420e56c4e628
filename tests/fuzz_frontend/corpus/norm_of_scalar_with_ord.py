"""F22, from a seed-27 mutant of tests/models/numpy_order_statistics.py: `np.linalg.norm(3,
np.inf)`, an ord with no axis to take it over (numpy's "ValueError: Improper number of dimensions
to norm."), indexed an empty axis list (internal error, exit 2)."""
import agc
import agc.numpy as np


@agc.export
def norms(v: agc.f32[3]):
    return np.linalg.norm(v, 1) + np.linalg.norm(3, np.inf)
