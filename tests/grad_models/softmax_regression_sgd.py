"""Softmax regression trained by SGD inside one exported call: agc.grad of the mean cross-entropy (one-hot by comparison
with np.arange(10)) in a staged loop, batches X[s:s+200] taken in order by run-time slicing, wrapping around (float32).

`train_sgd` runs EPOCHS * N // BATCH steps: 1000 steps for the 10,000 examples of the test. (A compile-time step
count would unroll the loop, so the count is derived from the run-time N.) `train_sgd_steps` takes the step count
as a run-time argument.
"""
import agc
import agc.numpy as np

BATCH = 200
LR = 0.1
EPOCHS = 20


def xent(W, b, Xb, yb):
    z = Xb @ W + b
    z = z - np.max(z, axis=1, keepdims=True)
    logp = z - np.log(np.sum(np.exp(z), axis=1, keepdims=True))
    onehot = yb[:, None] == np.arange(10)
    return -np.mean(np.sum(np.where(onehot, logp, 0.0), axis=1))


def sgd(X, y, W, b, steps):
    n = X.shape[0]
    for step in range(steps):
        s = (step * BATCH) % n
        gW, gb = agc.grad(xent, argnums=(0, 1))(W, b, X[s:s + BATCH], y[s:s + BATCH])
        W = W - LR * gW
        b = b - LR * gb
    return W, b


@agc.export
def train_sgd(X: agc.f32["N", 784], y: agc.i64["N"], W: agc.f32[784, 10], b: agc.f32[10]):
    # np.asarray: `EPOCHS * X.shape[0]` on the run-time size itself is rejected by the compiler
    # (runtime_size_loop_count.py keeps that form)
    return sgd(X, y, W, b, EPOCHS * np.asarray(X.shape[0]) // BATCH)


@agc.export
def train_sgd_steps(X: agc.f32["N", 784], y: agc.i64["N"], W: agc.f32[784, 10], b: agc.f32[10], steps: agc.i64[()]):
    return sgd(X, y, W, b, steps)


@agc.export
def xent_grad(W: agc.f32[784, 10], b: agc.f32[10], Xb: agc.f32["B", 784], yb: agc.i64["B"]):
    return agc.grad(xent, argnums=(0, 1))(W, b, Xb, yb)


AGC_GRAD_CHECKS = {"xent_grad": ("xent", (0, 1))}
AGC_GRAD_DEDICATED = ("train_sgd", "train_sgd_steps")


def agc_grad_inputs(name, rng):
    return [[(0.05 * rng.standard_normal((784, 10))).astype(np.float32), (0.1 * rng.standard_normal(10)).astype(np.float32),
             rng.random((bsz, 784)).astype(np.float32), rng.integers(0, 10, bsz)] for bsz in (7, 200)]
