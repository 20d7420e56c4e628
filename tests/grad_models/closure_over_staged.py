"""A lambda or nested function that captures staged tensors of the export, differentiated with agc.grad (float32)."""
import agc
import agc.numpy as np


@agc.export
def lambda_capture_grad(w: agc.f32[3, 2], x: agc.f32["B", 3], t: agc.f32[2]):
    return agc.grad(lambda a: np.sum((x @ a - t) ** 2))(w)


@agc.export
def nested_def_capture_grad(w: agc.f32[3, 2], x: agc.f32["B", 3], t: agc.f32[2]):
    def objective(a):
        return np.sum((x @ a - t) ** 2)
    return agc.grad(objective)(w)


def reference(w, x, t):
    return np.sum((x @ w - t) ** 2)


AGC_GRAD_CHECKS = {
    "lambda_capture_grad": ("reference", 0),
    "nested_def_capture_grad": ("reference", 0),
}
