"""Accuracy of the compiled float32 exp, log and tanh against numpy in float64, in ulps of the
float32 result, over a dense sweep of every regime: tiny, normal and huge arguments, subnormal
inputs and results, overflow, and the special values (±0, ±inf, NaN, negative logs)."""

import textwrap

import numpy as np
import pytest

import agc

# The bounds documented in backend/src/mlir/approx.rs.
MAX_ULP = {"exp": 2.0, "log": 2.0, "tanh": 3.0}

MODEL = textwrap.dedent('''
    """float32 transcendentals, elementwise."""
    import agc
    import agc.numpy as np

    @agc.export
    def f_exp(x: agc.f32["N"]):
        return np.exp(x)

    @agc.export
    def f_log(x: agc.f32["N"]):
        return np.log(x)

    @agc.export
    def f_tanh(x: agc.f32["N"]):
        return np.tanh(x)
''')


@pytest.fixture(scope="module", params=["inline", "out-of-line"])
def lib(request, agc_bin, tmp_path_factory):
    """The model built with the approximations inline, and built with them as calls of the
    out-of-line functions (scalar and vector variants) that modules with many of them get."""
    work = tmp_path_factory.mktemp("transcendentals")
    (work / "transcendentals.py").write_text(MODEL)
    with pytest.MonkeyPatch.context() as mp:
        if request.param == "out-of-line":
            mp.setenv("AGC_INLINE_MATH_LIMIT", "0")
        return agc.load(agc.build(work / "transcendentals.py", work / "out"))


def sweep(lo_exp, hi_exp, n=400_000):
    """Positive float32 values spread evenly in log scale from 2**lo_exp to 2**hi_exp, and their negatives."""
    mags = np.exp2(np.linspace(lo_exp, hi_exp, n)).astype(np.float32)
    return np.concatenate([mags, -mags])


SPECIALS = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 1e-45, -1e-45,
                     np.finfo(np.float32).max, np.finfo(np.float32).tiny], np.float32)

INPUTS = {
    "exp": np.concatenate([sweep(-30, 7), np.linspace(-110, 95, 200_001, dtype=np.float32), SPECIALS]),
    "log": np.concatenate([sweep(-149, 127.99), SPECIALS]),
    "tanh": np.concatenate([sweep(-30, 5), np.linspace(-12, 12, 200_001, dtype=np.float32), SPECIALS]),
}


def ulp_error(got, x, fn):
    """|got - fn(x)| in float32 ulps of the float64 reference; 0 where both agree on inf/NaN."""
    with np.errstate(all="ignore"):
        ref = fn(x.astype(np.float64))
        ref32 = ref.astype(np.float32)
    both_nan = np.isnan(got) & np.isnan(ref32)
    same_inf = np.isinf(got) & (got == ref32)
    spacing = np.spacing(np.abs(ref32)).astype(np.float64)
    spacing[spacing == 0] = np.spacing(np.float32(0))
    with np.errstate(all="ignore"):
        err = np.abs(got.astype(np.float64) - ref) / spacing
    err[both_nan | same_inf] = 0.0
    return err


@pytest.mark.parametrize("name", sorted(MAX_ULP))
def test_float32_accuracy(lib, name):
    x = INPUTS[name]
    with np.errstate(all="ignore"):
        got = getattr(lib, f"f_{name}")(x)
    assert got.dtype == np.float32
    err = ulp_error(got, x, getattr(np, name))
    worst = int(np.nanargmax(err))
    assert not np.isnan(err).any(), f"{name}: NaN where numpy has a number at {x[np.isnan(err)][:5]}"
    assert err[worst] <= MAX_ULP[name], (
        f"{name}({x[worst]!r}) = {got[worst]!r}, numpy float64 gives {getattr(np, name)(np.float64(x[worst]))!r}: "
        f"{err[worst]:.2f} ulp > {MAX_ULP[name]}")
