"""sgemm: C = A @ B for square float32 matrices, n = 256, 512, 1000, 1024, 2048."""

import numpy as np

TITLE = "sgemm"
UNIT = "GFLOP/s"
FRAMEWORKS = ("agc", "numpy", "torch", "torch.compile", "jax", "tf")
TOL = 1e-3
SIZES = (256, 512, 1000, 1024, 2048)


def cases(quick):
    sizes = (256, 512) if quick else SIZES
    # items: GFLOP per call, so that items / seconds is GFLOP/s
    return [{"label": f"sgemm n={n}", "n": n, "items": 2.0 * n ** 3 / 1e9} for n in sizes]


def data(case):
    rng = np.random.default_rng(0)
    n = case["n"]
    return {"a": rng.standard_normal((n, n), dtype=np.float32),
            "b": rng.standard_normal((n, n), dtype=np.float32)}
