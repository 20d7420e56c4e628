"""np.argmax over an axis and flattened; results are int64 (numpy's intp)."""
import agc
import agc.numpy as np


@agc.export
def argmax_axes(x: agc.f32[4, 6]):
    return np.argmax(x, axis=1), np.argmax(x, axis=0), np.argmax(x), x.argmax(axis=-1)


@agc.export
def argmax_ints(n: agc.i32[5, 3]):
    return np.argmax(n, axis=1)


@agc.export
def predicted_class(logits: agc.f32["B", 10]):
    return np.argmax(logits, axis=-1)


def agc_test_inputs(export_name, rng, dims):
    if export_name == "argmax_ints":
        # ties: numpy returns the first maximal index
        return [rng.integers(0, 3, size=(5, 3)).astype(np.int32)]
    return None
