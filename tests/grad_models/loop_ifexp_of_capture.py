"""Gradient of a lambda whose loss runs a staged `for i in range(1, n + 1)` holding a staged
conditional expression whose two sides are the same captured float64 tensor (each side must yield
the lambda's copy of the capture, not the export's value of the same number), float32; fuzzer
finding F11."""
import agc
import agc.numpy as np


def loss(x1, x2, n):
    s = 0.0
    for i in range(1, n + 1):
        v = x2 if np.mean(x2) > 0.1 else x2 * 2.0
        s = s + np.sum(v) * i
    return np.mean(x1) + s


def reference(x0, x1, x2, n):
    return loss(x1, x2, n) * x0


@agc.export
def ifexp_in_loop(x0: agc.f32[()], x1: agc.f32["B"], x2: agc.f64[3], n: agc.i32[()]):
    return agc.grad(lambda w: loss(x1, x2, n) * w)(x0)


def agc_test_inputs(export_name, rng, dims):
    x2 = rng.standard_normal(3) * (1.0 if dims["B"] % 2 else -1.0)
    return [np.float32(0.5), rng.standard_normal(dims["B"]).astype(np.float32), x2, np.int32(3)]


AGC_GRAD_CHECKS = {"ifexp_in_loop": ("reference", 0)}
