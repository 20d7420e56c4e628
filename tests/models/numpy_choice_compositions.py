"""numpy's comparisons and choices that agc stages as compositions of others: isclose, allclose,
array_equal, select, searchsorted, digitize and take_along_axis (negative indices from the end;
an index out of range is numpy's IndexError, a failed call), against numpy at run-time sizes."""
import agc
import numpy as np


@agc.export
def closeness(x: agc.f32["N", "M"], y: agc.f32["N", "M"]):
    z = np.where(x > 1.0, np.nan, x)
    return (np.isclose(x, x + y * 1e-6), np.isclose(x, 0.0, atol=0.5), np.isclose(z, z),
            np.isclose(z, z, equal_nan=True), np.allclose(x, x * 1.0000001), np.allclose(x, y),
            np.array_equal(x, x), np.array_equal(x, x[None]), np.array_equal(z, z, equal_nan=True))


@agc.export
def choices(x: agc.f32["N", "M"], k: agc.i64["N", "M"]):
    return (np.select([x > 1, x < -1], [x, -x], 0.0), np.select([x > 0], [x * 2]),
            np.select([k > 0, k < 0], [k, k * 3], -7))


@agc.export
def sorted_search(x: agc.f32["N", "M"], edges: agc.f64["K"]):
    e = np.sort(edges)
    b = np.array([-1.0, 0.0, 0.5, 1.0])
    return (np.searchsorted(b, x), np.searchsorted(b, x, side="right"), np.searchsorted(e, x),
            np.digitize(x, b), np.digitize(x, b, right=True), np.searchsorted(b, 0.5),
            np.searchsorted(np.array([0.0, np.nan]), np.where(x > 0, np.nan, x)))


@agc.export
def along_axis(x: agc.f32["N", "M"], i: agc.i64["N", "K"]):
    order = np.argsort(x, axis=1)
    best = np.argmax(x, axis=0)
    return (np.take_along_axis(x, order, axis=1), np.take_along_axis(x, best[None, :], axis=0),
            np.take_along_axis(x, i, axis=1), np.take_along_axis(x[0], np.array([1, -1, 0]), axis=0),
            np.take_along_axis(x.ravel(), np.array([2, 0]), axis=None))


def agc_test_inputs(export_name, rng, dims):
    if export_name == "along_axis":
        x = rng.standard_normal((dims["N"], dims["M"])).astype(np.float32)
        # In range, negative ones too; the second size assignment also gets one out of range.
        i = rng.integers(-dims["M"], dims["M"], (dims["N"], dims["K"]))
        if dims["K"] > 5:
            i[0, 0] = dims["M"]
        return [x, i]
    return None
