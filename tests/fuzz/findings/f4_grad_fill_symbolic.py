"""FINDINGS.md F4: agc.grad where a zeros of symbolic size sits in a staged region: "size of symbolic
dim `B` is unknown here", exit 1 without a line:col."""
import agc
import agc.numpy as np


def loss(x, w):
    for row in w:
        for row2 in w:
            pass
        z = np.zeros((x.shape[0],))
    return np.mean(x)


@agc.export
def f4(x: agc.f32['B', 5], w: agc.f32['B', 2]):
    return agc.grad(loss, argnums=1)(x, w)


def loss_b(x0, x1, n):
    if n == 0:
        return np.max(x0)
    return np.sum(np.zeros((x1.shape[0],)))


@agc.export
def f4b(x0: agc.f64[2, 5], x1: agc.f64['B', 2], n: agc.i32[()]):
    return agc.grad(loss_b)(x0, x1, n)


AGC_FUZZ_INPUTS = {
    "f4": [np.ones((3, 5), np.float32), np.ones((3, 2), np.float32)],
    "f4b": [np.arange(10.0).reshape(2, 5), np.ones((3, 2)), np.array(1, dtype=np.int32)],
}


def agc_test_inputs(export_name, rng, dims):
    return AGC_FUZZ_INPUTS.get(export_name)
