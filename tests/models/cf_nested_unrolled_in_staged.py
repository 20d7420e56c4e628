"""A compile-time loop (unrolled) inside a staged loop over run-time T."""
import agc
import agc.numpy as np

STEPS = 4


@agc.export
def inner_unrolled(xs: agc.f32["T", 3], w: agc.f32[4, 3]):
    h = np.zeros(3, dtype=np.float32)
    for t in range(xs.shape[0]):
        for k in range(STEPS):               # unrolled: four ops per staged iteration
            h = h + w[k] * xs[t] * (k + 1)
        h = np.tanh(h)
    return h


@agc.export
def inner_list(xs: agc.f32["T", 3]):
    total = np.zeros((), dtype=np.float32)
    for t in range(xs.shape[0]):
        for scale in [1.0, -0.5, 0.25]:
            total = total + np.sum(xs[t]) * scale * 3
            if total > 3:                    # staged if inside the unrolled loop
                total = total - 1
    return total
