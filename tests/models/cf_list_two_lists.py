"""Two lists appended in the same staged loop (outputs and states), stacked separately."""
import agc
import agc.numpy as np


@agc.export
def two_lists(xs: agc.f32["T", 3], w: agc.f32[3, 3]):
    h = np.zeros(3, dtype=np.float32)
    outputs = []
    norms = []
    for t in range(xs.shape[0]):
        h = np.tanh(xs[t] @ w + h)
        outputs.append(h * 2)
        norms.append(np.sqrt(np.sum(h * h)))
    return np.stack(outputs), np.stack(norms)
