"""A closure differentiated with agc.grad whose staged `if` yields a tensor it captured from the
export (the capture must become the branch's value, not the differentiated argument of the same
shape), float32."""
import agc
import agc.numpy as np


def reference(c, w):
    if np.sum(w) > 0:
        v = c
    else:
        v = w * 2.0
    return np.sum(np.sin(v * w))


@agc.export
def capture_in_then_branch(c: agc.f32[3], w: agc.f32[3]):
    def objective(a):
        if np.sum(a) > 0:
            v = c
        else:
            v = a * 2.0
        return np.sum(np.sin(v * a))
    return agc.grad(objective)(w)


@agc.export
def capture_in_lambda_branch(c: agc.f32["B"], w: agc.f32["B"]):
    return agc.grad(lambda a: reference(c, a))(w)


def agc_test_inputs(export_name, rng, dims):
    n = dims["B"] if export_name == "capture_in_lambda_branch" else 3
    c = rng.standard_normal(n).astype(np.float32)
    w = np.abs(rng.standard_normal(n)).astype(np.float32) + 0.1   # sum > 0: the branch yielding c
    return [c, w]


AGC_GRAD_CHECKS = {
    "capture_in_then_branch": ("reference", 1),
    "capture_in_lambda_branch": ("reference", 1),
}
