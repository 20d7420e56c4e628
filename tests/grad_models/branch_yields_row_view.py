"""A staged conditional expression choosing between a fresh tensor and a row of an argument (a
view at a run-time offset), under `agc.grad`: the continuation captures the chosen value. The
`scf.if` yielding the view gave bufferization an invalid allocation (fuzz seed 5101's program
252)."""
import agc
import agc.numpy as np


def loss(x0, x1):
    v1 = np.sum(x0, axis=0) if np.any(x0 > 0.5) else x0[-1]
    if np.mean(x1) > 0.9:
        pass
    else:
        x1 = x1 * 1.5
    return np.mean(np.tanh(v1 + x1))


@agc.export
def row_or_sum_grad(x0: agc.f32["B", 3], x1: agc.f32["T", 5, 3]):
    return agc.grad(loss, argnums=(0, 1))(x0, x1)


AGC_GRAD_CHECKS = {
    "row_or_sum_grad": ("loss", (0, 1)),
}
