"""An inner staged range whose bound is the outer loop's index (triangular iteration)."""
import agc
import agc.numpy as np


@agc.export
def lower_triangle_sum(a: agc.f32["N", "N"]):
    total = np.zeros((), dtype=np.float32)
    for i in range(a.shape[0]):
        for j in range(i + 1):
            total = total + a[i, j]
    return total


@agc.export
def forward_substitution(l: agc.f64["N", "N"], b: agc.f64["N"]):
    """Solves L y = b for a lower-triangular L, one element at a time, collected in a list."""
    ys = []
    for i in range(l.shape[0]):
        s = b[i]
        for j in range(i):
            s = s - l[i, j] * ys[j]
        ys.append(s / l[i, i])
    return np.stack(ys)


def agc_test_inputs(export_name, rng, dims):
    n = dims["N"]
    if export_name == "forward_substitution":
        l = np.tril(rng.standard_normal((n, n))) + np.eye(n) * 3
        return [l, rng.standard_normal(n)]
    return None
