"""SGD steps in a staged loop whose count is an expression of a run-time size (`EPOCHS * N // BATCH`) (float32)."""
import agc
import agc.numpy as np

EPOCHS = 3
BATCH = 2


def loss(w, xb, yb):
    return np.mean((xb @ w - yb) ** 2)


@agc.export
def epochs_sgd(w: agc.f32[3], x: agc.f32["N", 3], y: agc.f32["N"]):
    for step in range(EPOCHS * x.shape[0] // BATCH):
        s = (step * BATCH) % x.shape[0]
        w = w - 0.1 * agc.grad(loss)(w, x[s:s + BATCH], y[s:s + BATCH])
    return w


@agc.export
def loss_grad(w: agc.f32[3], x: agc.f32["N", 3], y: agc.f32["N"]):
    return agc.grad(loss)(w, x, y)


AGC_GRAD_CHECKS = {"epochs_sgd": None, "loss_grad": ("loss", 0)}


def agc_grad_inputs(name, rng):
    return [[(0.5 * rng.standard_normal(3)).astype(np.float32), rng.standard_normal((n, 3)).astype(np.float32),
             rng.standard_normal(n).astype(np.float32)] for n in (4, 5)]
