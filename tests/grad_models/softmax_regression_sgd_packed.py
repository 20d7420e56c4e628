"""Softmax regression by SGD in one exported call, as softmax_regression_sgd.py, with the labels one-hot encoded
(comparison with np.arange(10)) once and packed next to the features, so that each step slices one tensor
D[s:s+200] instead of X[s:s+200] and y[s:s+200] (whose run-time sizes the compiler cannot yet prove equal) (float32).
"""
import agc
import agc.numpy as np

BATCH = 200
LR = 0.1
EPOCHS = 20


def xent(W, b, Xb, Tb):
    z = Xb @ W + b
    z = z - np.max(z, axis=1, keepdims=True)
    logp = z - np.log(np.sum(np.exp(z), axis=1, keepdims=True))
    return -np.mean(np.sum(Tb * logp, axis=1))


def sgd(X, y, W, b, steps):
    n = X.shape[0]
    onehot = (y[:, None] == np.arange(10)).astype(X.dtype)
    D = np.concatenate([X, onehot], axis=1)                 # [N, 794]
    for step in range(steps):
        s = (step * BATCH) % n
        Db = D[s:s + BATCH]
        gW, gb = agc.grad(xent, argnums=(0, 1))(W, b, Db[:, :784], Db[:, 784:])
        W = W - LR * gW
        b = b - LR * gb
    return W, b


@agc.export
def train_sgd(X: agc.f32["N", 784], y: agc.i64["N"], W: agc.f32[784, 10], b: agc.f32[10]):
    return sgd(X, y, W, b, EPOCHS * np.asarray(X.shape[0]) // BATCH)


@agc.export
def train_sgd_steps(X: agc.f32["N", 784], y: agc.i64["N"], W: agc.f32[784, 10], b: agc.f32[10], steps: agc.i64[()]):
    return sgd(X, y, W, b, steps)


@agc.export
def xent_grad(W: agc.f32[784, 10], b: agc.f32[10], Xb: agc.f32["B", 784], Tb: agc.f32["B", 10]):
    return agc.grad(xent, argnums=(0, 1))(W, b, Xb, Tb)


AGC_GRAD_CHECKS = {"xent_grad": ("xent", (0, 1))}
AGC_GRAD_DEDICATED = ("train_sgd", "train_sgd_steps")


def agc_grad_inputs(name, rng):
    sets = []
    for bsz in (7, 200):
        labels = rng.integers(0, 10, bsz)
        sets.append([(0.05 * rng.standard_normal((784, 10))).astype(np.float32),
                     (0.1 * rng.standard_normal(10)).astype(np.float32),
                     rng.random((bsz, 784)).astype(np.float32), (labels[:, None] == np.arange(10)).astype(np.float32)])
    return sets
