"""Bisection for a root of x**3 - c: a `while` on a float tolerance with a staged `if` choosing the half."""
import agc
import agc.numpy as np


@agc.export(name="cube_root_fine")
@agc.export(name="cube_root_coarse")
def cube_root(c: agc.f64[()], tol: agc.f64[()]):
    lo = np.zeros((), dtype=np.float64)
    hi = np.maximum(c, 1.0)
    it = 0
    while hi - lo > tol:
        mid = 0.5 * (lo + hi)
        if mid * mid * mid > c:
            hi = mid
        else:
            lo = mid
        it += 1
    return 0.5 * (lo + hi), np.asarray(it)


def agc_test_inputs(export_name, rng, dims):
    return [np.float64(rng.uniform(0.5, 50.0)), np.float64(1e-3 if export_name == "cube_root_coarse" else 1e-9)]
