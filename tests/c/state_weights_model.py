"""External weights from C (tests/c/state.c, mode `weights`): an affine map whose parameters come
from `state_weights.safetensors` (written by tests/test_c_state.py next to a copy of this file and
built with `--weights external`), plus a variable offset that `shift` assigns."""
import agc
import agc.numpy as np

P = agc.weights("state_weights.safetensors")
offset = agc.Variable(np.zeros(4, np.float32))


@agc.export
def apply(x: agc.f32["B", 5]):
    return x @ P["W"] + P["b"] + offset


@agc.export
def pick(i: agc.i64["N"]):
    return P["table"][i] * 2


@agc.export
def shift(by: agc.f32[4]):
    offset.assign(offset + by)
    return offset
