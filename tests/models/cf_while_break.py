"""`while` loops left by `break` on run-time conditions: `while True` and a staged condition plus a break."""
import agc
import agc.numpy as np


@agc.export
def first_above(x: agc.f32["N"], t: agc.f32[()]):
    i = 0
    found = np.asarray(-1)
    while i < x.shape[0]:
        if x[i] > t:
            found = np.asarray(i)
            break
        i += 1
    return found, np.asarray(i)


@agc.export(name="doubling_cap")
@agc.export(name="doubling_limit")
def doubling(x: agc.f64[()], limit: agc.f64[()]):
    k = np.zeros((), dtype=np.int64)
    while True:
        x = x * 2
        k = k + 1
        if x > limit:
            break
        if k >= 50:
            break
    return x, k


def agc_test_inputs(export_name, rng, dims):
    if export_name == "first_above":
        x = rng.standard_normal(dims["N"]).astype(np.float32)
        # first call: found somewhere; second call: never found (runs to the end)
        t = np.float32(0.5 if dims["N"] % 2 else 100.0)
        return [x, t]
    limit = {"doubling_cap": 1e30, "doubling_limit": 1000.0}[export_name]   # 50 steps vs about 11
    return [np.float64(rng.uniform(0.1, 1.0)), np.float64(limit)]


AGC_TEST_DIMS = {"N": 9}
