"""Static slices: ranges, steps, negative indices and steps, reversed, on several axes, overlapping uses (float32)."""
import agc
import agc.numpy as np


def loss(x):
    # x: [6,8]
    a = x[1:4]                  # [3,8]
    b = x[::2, 1::3]            # [3,3]
    c = x[-3:, :-2]             # [3,6]
    d = x[::-1, ::-2]           # [6,4]
    e = x[4:0:-2, -1]           # [2]
    f = x[:, 2:7:2][1:5]        # [4,3]
    return (np.sum(a ** 2) + np.sum(np.tanh(b) * np.arange(3)) + np.sum(c * x[:3, 2:])
            + np.sum(d * np.arange(4)) + np.sum(e ** 3) + np.sum(np.sin(f)))


@agc.export
def slice_grad(x: agc.f32[6, 8]):
    return agc.grad(loss)(x)


def windows(x):
    # sliding differences along a symbolic axis
    return np.sum((x[1:] - x[:-1]) ** 2) + np.sum(x[-2:] * 0.5) + np.sum(x[::-1][:2] ** 2)


@agc.export
def symbolic_slice_grad(x: agc.f32["N", 3]):
    return agc.grad(windows)(x)


AGC_GRAD_CHECKS = {"slice_grad": ("loss", 0), "symbolic_slice_grad": ("windows", 0)}
