"""A keepdims reduction over the last axis of a rank-3 tensor with run-time dims, broadcast back against it
(the max-subtraction of a batched softmax) (float32)."""
import agc
import agc.numpy as np


def centered(s):
    return np.sum((s - np.max(s, axis=2, keepdims=True)) ** 2) + np.sum(s + np.sum(s, axis=-1, keepdims=True))


@agc.export
def keepdims_grad(s: agc.f32["B", "T", "U"]):
    return agc.grad(centered)(s)


AGC_GRAD_CHECKS = {"keepdims_grad": ("centered", 0)}
