"""A gradient through a staged `if` whose branch makes an array of derived run-time size (a
`np.roll` of a run-time-sized vector: a concatenation `(B+B)` sliced back to `B`) followed by staged
loops: the continuation of the loops must not capture the branch's inner value to learn that size
(fuzzer finding 4001-2217: "operand used before its definition"), float32/float64."""
import agc
import agc.numpy as np


def roll_or_mean(x, k):
    if k <= 0:
        return np.roll(x, 2)
    return np.mean(np.zeros((x.shape[0], 3)) + x[:, None], axis=1)


def loss(x0, x1, n):
    for i in range(1 + x0.shape[0] // 2):
        for j in range(n + 1):
            x0 = x0 * 0.9
        x1 = x1 * 0.9 + np.minimum(roll_or_mean(x1, n - 3), x1)
    return np.mean(x0) + np.float32(np.sum(x1)) * np.sum(x0 * x0)


def reference(x0, x1, n):
    return loss(x0, x1, n)


@agc.export
def grad_after_branch(x0: agc.f32[5], x1: agc.f64["B"], n: agc.i32[()]):
    return agc.grad(lambda w: loss(w, x1, n))(x0)


def agc_test_inputs(export_name, rng, dims):
    n = 2 if dims["B"] % 2 else 4      # both sides of the branch
    return [rng.standard_normal(5).astype(np.float32), rng.standard_normal(dims["B"]), np.int32(n)]


AGC_GRAD_CHECKS = {"grad_after_branch": ("reference", 0)}
