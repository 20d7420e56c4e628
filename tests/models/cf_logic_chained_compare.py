"""Chained comparisons `lo < s < hi` on staged values (Python: `lo < s and s < hi`)."""
import agc
import agc.numpy as np


@agc.export
def in_band(x: agc.f32["N"], lo: agc.f32[()], hi: agc.f32[()]):
    total = np.zeros((), dtype=np.float32)
    for i in range(x.shape[0]):
        if lo < x[i] < hi:
            total = total + x[i]
    return total


@agc.export
def band_label(s: agc.f64[()]):
    if 0 <= s < 1:
        return np.asarray(1)
    if -1 < s < 0 <= s + 1 < 10:
        return np.asarray(2)
    return np.asarray(3)


def agc_test_inputs(export_name, rng, dims):
    if export_name == "in_band":
        return [rng.standard_normal(dims["N"]).astype(np.float32), np.float32(-0.5), np.float32(0.8)]
    return [np.float64(rng.choice([0.5, -0.5, 3.0]))]


@agc.export(name="band_first")
@agc.export(name="band_second")
@agc.export(name="band_none")
def band_cases(s: agc.f64[()]):
    return band_label(s)


_S = {"band_first": 0.25, "band_second": -0.75, "band_none": 42.0}
_hook = agc_test_inputs


def agc_test_inputs(export_name, rng, dims):  # noqa: F811
    if export_name in _S:
        return [np.float64(_S[export_name])]
    return _hook(export_name, rng, dims)


AGC_TEST_DIMS = {"N": 12}
