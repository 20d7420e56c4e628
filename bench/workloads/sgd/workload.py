"""The whole SGD training loop in one call: softmax regression 784 -> 10, batch 200.

Each call starts from the same initial weights and runs `steps` plain SGD
steps (learning rate 0.01) on the mean softmax cross-entropy of batch
`s % NB` of a fixed data set (NB batches of 200 examples, pixels uniform in
[0, 1), labels from a random linear teacher), and returns the final weights,
bias and last loss. Steps per second = steps / seconds per call.

The learning rate is below 2 / (largest curvature) for these inputs (whose
mean makes x @ w large): at 0.1 the iteration is unstable, the loss jumps
between 0.3 and 5, and float32 rounding differences between frameworks grow
until no two agree after a few hundred steps, so no result could be checked.
"""

import numpy as np

TITLE = "SGD loop (softmax regression)"
UNIT = "steps/s"
FRAMEWORKS = ("agc", "torch", "torch.compile", "jax", "tf")
TOL = 1e-3
D, C, BATCH, LR = 784, 10, 200, 0.01


def cases(quick):
    steps, nb = (100, 10) if quick else (1000, 50)
    return [{"label": f"SGD 784->10 b{BATCH} x{steps}", "steps": steps, "nb": nb, "items": float(steps)}]


def data(case):
    rng = np.random.default_rng(0)
    nb = case["nb"]
    xs = rng.random((nb, BATCH, D), dtype=np.float32)
    teacher = rng.standard_normal((D, C)).astype(np.float32)
    ys = np.argmax(xs @ teacher, axis=-1).astype(np.int32)
    w = (0.01 * rng.standard_normal((D, C))).astype(np.float32)
    b = np.zeros(C, np.float32)
    return {"w": w, "b": b, "xs": xs, "ys": ys, "steps": np.int64(case["steps"])}
