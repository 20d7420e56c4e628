# fuzz_frontend: np.mean(x, dtype=np.bool_) (or an integer dtype; also var and std) staged a
# division of integers and failed IR verification (exit 2: "div takes float operands").
import agc
import agc.numpy as np


@agc.export
def f(x: agc.f32["B", 6]):
    return np.mean(x, axis=-1, keepdims=True, dtype=np.bool_)
