"""Module-level configuration (a dict) drives compile-time `if`s and `while`s; nothing of it is staged."""
import agc
import agc.numpy as np

CONFIG = {"norm": "layer", "steps": 3, "eps": 1e-5, "gain": [1.0, 0.5, 0.25]}


def normalize(x):
    if CONFIG["norm"] == "layer":
        m = np.mean(x, axis=-1, keepdims=True)
        v = np.var(x, axis=-1, keepdims=True)
        return (x - m) / np.sqrt(v + CONFIG["eps"])
    elif CONFIG["norm"] == "none":
        return x
    raise ValueError("unknown norm")


@agc.export
def refine(x: agc.f32["B", 6], w: agc.f32[6, 6]):
    k = 0
    while k < CONFIG["steps"]:        # compile-time while: unrolled
        x = normalize(x @ w) * CONFIG["gain"][k] + x
        k += 1
    return x
