"""Run-time integer indices and slice bounds from parameters: x[i], x[i, j], x[i:i+3], embedding rows E[ids[k]] (float32)."""
import agc
import agc.numpy as np


def pick(x, i, j):
    return x[i, j] ** 2 + np.sum(x[i] * 0.5) + np.sum(np.tanh(x[i] * x[i, j])) + np.sum(x[i:i + 2] ** 2)


@agc.export
def pick_grad(x: agc.f32[5, 4], i: agc.i64[()], j: agc.i64[()]):
    return agc.grad(pick)(x, i, j)


def window(x, s):
    w = x[s:s + 3]          # its length is a run-time value (numpy clips it at the end)
    return np.sum(np.sin(w) * w) + np.mean(w) ** 2


@agc.export
def window_grad(x: agc.f32["N"], s: agc.i64[()]):
    return agc.grad(window)(x, s)


def gather_rows(E, ids):
    acc = np.zeros_like(E[0])
    for k in range(ids.shape[0]):
        acc = acc + E[ids[k]] * (k + 1)
    return np.sum(np.tanh(acc))


@agc.export
def embedding_grad(E: agc.f32[6, 3], ids: agc.i64["K"]):
    return agc.grad(gather_rows)(E, ids)


AGC_GRAD_CHECKS = {
    "pick_grad": ("pick", 0),
    "window_grad": ("window", 0),
    "embedding_grad": ("gather_rows", 0),
}


def agc_grad_inputs(name, rng):
    if name == "pick_grad":
        x = rng.standard_normal((5, 4)).astype(np.float32)
        return [[x, np.int64(i), np.int64(j)] for i, j in ((0, 0), (2, 3), (4, 1), (-1, -2), (3, -4))]
    if name == "window_grad":
        return [[rng.standard_normal(n).astype(np.float32), np.int64(s)] for n, s in ((7, 0), (7, 4), (9, 2), (5, 3))]
    # repeated ids: the gradient rows accumulate
    return [[rng.standard_normal((6, 3)).astype(np.float32), np.array(ids, np.int64)]
            for ids in ([1, 4, 1, 0, 5], [3], [2, 2, 2])]
