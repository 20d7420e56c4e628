"""Comparing agc's results with the eager oracle's, as tests/harness.py does.

dtype, shape and result count exactly; integers and bools exactly; floats
to a relative tolerance plus an absolute floor scaled by the result's
magnitude (float32 1e-4, float64 1e-10; gradients 1e-3 and 1e-6, as
tests/test_gradients.py), widened by 50x the eager result's own movement
under a few-ulp perturbation of the inputs (`oracle.evaluate`'s noise).
"""

import numpy as np

FORWARD = {np.dtype(np.float32): (1e-4, 1e-5), np.dtype(np.float64): (1e-10, 1e-12)}
GRADIENT = {np.dtype(np.float32): (1e-3, 1e-5), np.dtype(np.float64): (1e-6, 1e-9)}
FD = {np.dtype(np.float32): (1e-3, 1e-5), np.dtype(np.float64): (1e-5, 1e-7)}
NOISE_FACTOR = 50.0


class Mismatch:
    """How agc's results differ: `kind` is count, dtype, shape or values."""

    def __init__(self, kind, text, index=None, expected=None, actual=None, max_err=None):
        self.kind, self.text, self.index = kind, text, index
        self.expected, self.actual, self.max_err = expected, actual, max_err

    def __repr__(self):
        return f"Mismatch({self.kind}: {self.text})"


def tolerance(dtype, expected, noise=0.0, table=FORWARD):
    rtol, atol = table[np.dtype(dtype)]
    finite = np.abs(expected[np.isfinite(expected)]) if expected.size else np.zeros(0)
    scale = max(1.0, float(finite.max())) if finite.size else 1.0
    return rtol, atol * scale + NOISE_FACTOR * noise


def close(actual, expected, rtol, atol):
    a = np.asarray(actual, np.float64)
    e = np.asarray(expected, np.float64)
    return bool(np.all(np.abs(a - e) <= atol + rtol * np.abs(e)))


def compare(got, expected, noise, gradient=False):
    """None if `got` (agc's tuple of arrays) matches `expected` (the eager tuple), else a Mismatch."""
    if len(got) != len(expected):
        return Mismatch("count", f"{len(got)} results, eager gives {len(expected)}")
    table = GRADIENT if gradient else FORWARD
    for k, (a, e) in enumerate(zip(got, expected)):
        a = np.asarray(a)
        if a.dtype != e.dtype:
            return Mismatch("dtype", f"result {k}: dtype {a.dtype}, eager gives {e.dtype}", k, e, a)
        if a.shape != e.shape:
            return Mismatch("shape", f"result {k}: shape {a.shape}, eager gives {e.shape}", k, e, a)
        if e.dtype.kind == "f":
            rtol, atol = tolerance(e.dtype, e, noise[k], table)
            if not close(a, e, rtol, atol):
                err = float(np.max(np.abs(a.astype(np.float64) - e))) if e.size else 0.0
                return Mismatch("values", f"result {k}: max abs error {err:.3g} (rtol {rtol:g}, atol {atol:.3g})",
                                k, e, a, err)
        elif not np.array_equal(a, e):
            bad = np.argwhere(a != e) if a.shape else np.zeros((1, 0), int)
            first = tuple(int(i) for i in bad[0])
            return Mismatch("values", f"result {k}: {len(bad)} of {e.size} elements differ; first at {first}: "
                            f"agc {a[first]!r}, eager {e[first]!r}", k, e, a)
    return None


def _summary(a, limit=8):
    flat = np.asarray(a).ravel()
    text = np.array2string(flat[:limit], precision=6, separator=", ")
    return text[:-1] + ", ...]" if flat.size > limit else text


def summary(a, limit=12):
    """A short printable form of an array for reports."""
    a = np.asarray(a)
    return f"{a.dtype}{list(a.shape)} {_summary(a, limit)}"


# ---------------------------------------------------------------- finite differences

def finite_difference_gradients(loss, args, nums, rel_step=1e-6):
    """float64 central differences of scalar `loss(*args)` w.r.t. `args[i]` for i in `nums`."""
    args = [np.array(a, dtype=np.float64) if np.asarray(a).dtype.kind == "f" else np.asarray(a) for a in args]
    out = []
    for i in nums:
        x = args[i]
        g = np.zeros(x.shape)
        for j in np.ndindex(x.shape):
            v = x[j]
            h = rel_step * max(1.0, abs(v))
            x[j] = v + h
            with np.errstate(all="ignore"):
                fp = float(np.asarray(loss(*args)))
            x[j] = v - h
            with np.errstate(all="ignore"):
                fm = float(np.asarray(loss(*args)))
            x[j] = v
            g[j] = (fp - fm) / (2 * h)
        out.append(g)
    return out


def matches_fd(got, fd_grads, value_first, dtype):
    """True if agc's gradient results agree with float64 finite differences."""
    grads = list(got[1:] if value_first else got)
    if len(grads) != len(fd_grads):
        return False
    for a, g in zip(grads, fd_grads):
        if np.asarray(a).shape != g.shape:
            return False
        rtol, atol = tolerance(dtype, g, 0.0, FD)
        if not close(a, g, rtol, atol * 10):
            return False
    return True
