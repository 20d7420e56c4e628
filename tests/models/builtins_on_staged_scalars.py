"""Python's int(), float(), bool(), max() and min() on staged scalars give staged Python numbers
(weak, as NEP 50 treats Python numbers), usable in arithmetic and staged conditions. (max() of a
staged value and a Python float is not compared here: which object Python returns, and so the
result's dtype, depends on the values.)"""
import agc
import agc.numpy as np


@agc.export
def scalar_builtins(x: agc.f32["N", 3]):
    k = int(np.sum(x > 0))                     # truncating count, int64
    total = float(x[0, 0]) * 2                  # float64
    hi = max(np.sum(x[0]), np.min(x), x[1, 1])  # np.maximum folded, float32
    lo = min(np.sum(x[-1]), np.float32(0.25))
    if bool(np.any(x > 1.5)):
        hi = hi + 10
    return k, total, hi, lo, int(np.max(x) * 3) + k


def agc_test_inputs(export_name, rng, dims):
    return [(1.2 * rng.standard_normal((dims["N"], 3))).astype(np.float32)]
