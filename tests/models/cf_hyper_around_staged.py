"""A hyperparameter `if` around a staged `if`/loop: only the chosen specialisation is staged."""
import agc
import agc.numpy as np


@agc.export(name="mode_loop", mode="loop")
@agc.export(name="mode_branch", mode="branch")
@agc.export(name="mode_none", mode="none")
def run(xs: agc.f32["T", 3], t: agc.f32[()], mode="loop"):
    if mode == "loop":
        acc = np.zeros(3, dtype=np.float32)
        for i in range(xs.shape[0]):
            if np.sum(xs[i]) > t:
                acc = acc + xs[i]
        return acc
    if mode == "branch":
        if np.max(xs) > t:
            return xs[0]
        return xs[-1]
    return np.sum(xs, axis=0)


def agc_test_inputs(export_name, rng, dims):
    xs = rng.standard_normal((dims["T"], 3)).astype(np.float32)
    return [xs, np.float32(0.0 if dims["T"] % 2 else 5.0)]
