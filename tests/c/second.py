"""A second library (name: second) linked into one program together with cabi."""
import agc
import agc.numpy as np


@agc.export
def scale_rows(m: agc.f64["R", 2], s: agc.f64["R"]):
    """Each row of m times the matching entry of s."""
    return m * s[:, None]


@agc.export
def affine(m: agc.f64["R", 2], s: agc.f64["R"]):
    """Shares its name with cabi's `affine`: the C symbols differ (cabi_affine, second_affine)."""
    return m * 2.0 + s[:, None]
