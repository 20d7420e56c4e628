"""Gradients through a staged `if` that returns early from inside a nested staged `if`, with respect
to an argument of run-time size that the returning path does not read (its adjoint there is zeros
of a symbolic size, made in a continuation that receives no tensor of that size), float32;
fuzzer finding F10."""
import agc
import agc.numpy as np


def loss(x0, x1):
    if x0 > 0.5:
        if x0 > 1.0:
            x1 = x1 * 0.5
        return x0
    return x1[-1] * x0


@agc.export
def early_path(x0: agc.f32[()], x1: agc.f32["B"]):
    return agc.grad(loss, argnums=1)(x0, x1)


@agc.export
def late_path(x0: agc.f32[()], x1: agc.f32["B"]):
    return agc.grad(loss, argnums=(0, 1))(x0, x1)


def agc_test_inputs(export_name, rng, dims):
    x1 = rng.standard_normal(dims["B"]).astype(np.float32)
    # The first dims set takes the early return (through the inner `if` on the second), the other the late one.
    x0 = {"early_path": 1.5 if dims["B"] % 2 else 0.7, "late_path": 0.2}[export_name]
    return [np.float32(x0), x1]


AGC_GRAD_CHECKS = {"early_path": ("loss", 1), "late_path": ("loss", (0, 1))}
