"""`for` over lists and tuples of tensors, zip and enumerate, with compile-time weights."""
import agc
import agc.numpy as np

COEFFS = (0.5, -1.0, 2.0)


@agc.export
def weighted_sum(a: agc.f32[5], b: agc.f32[5], c: agc.f32[5]):
    total = np.zeros(5, dtype=np.float32)
    for coef, t in zip(COEFFS, [a, b, c]):
        total = total + coef * t
    return total


@agc.export
def enumerate_terms(a: agc.f32[2, 3], b: agc.f32[2, 3]):
    out = a * 0
    for i, t in enumerate((a, b, a * b)):
        out = out + t * (i + 1)
    return out


@agc.export
def enumerate_start(a: agc.f32[4]):
    parts = []
    for k, coef in enumerate([1.0, 2.0, 3.0], start=2):
        parts.append(a * coef + k)
    return parts[0] + parts[1] * parts[2]
