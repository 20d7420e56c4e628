"""Full reductions returning 0-d results: sum, mean, max, min as functions and methods, on f32/f64/i64/bool."""
import agc
import numpy as np


@agc.export
def scalars_f32(x: agc.f32[4, 5]):
    return np.sum(x), np.mean(x), np.max(x), np.min(x), x.sum()


@agc.export
def scalars_other(d: agc.f64[7], n: agc.i64[7], m: agc.bool_[7]):
    return d.mean(), np.sum(n), n.max(), np.sum(m)


@agc.export
def scalar_arith(x: agc.f32["N"]):
    total = np.sum(x)
    return total * 2.0 + np.max(x) - np.mean(x * x)
