"""Staged `if`/`else` where both branches assign the same variables; inputs take each branch."""
import agc
import agc.numpy as np


@agc.export(name="both_pos")
@agc.export(name="both_neg")
def both(x: agc.f32["N", 3]):
    if np.sum(x) > 0:
        y = x * 2.0 + 1.0
        z = np.max(x)
    else:
        y = np.abs(x) - 1.0
        z = np.min(x)
    return y, z


@agc.export
def per_call(x: agc.f32["N"], t: agc.f32[()]):
    if np.mean(x) > t:
        out = np.exp(x - t)
    else:
        out = np.tanh(x) * t
    return out


def agc_test_inputs(export_name, rng, dims):
    n = dims["N"]
    if export_name == "per_call":
        x = rng.standard_normal(n).astype(np.float32)
        # first call (N=5) takes the `if` branch, second (N=2) the `else` branch
        t = np.float32(-10.0 if n % 2 else 10.0)
        return [x, t]
    x = np.abs(rng.standard_normal((n, 3))).astype(np.float32) + 0.1
    return [x if export_name == "both_pos" else -x]
