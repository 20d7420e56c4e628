"""A `continue` in a nested staged `if` skips the rest of the loop body, where a variable is assigned
a value that nothing reads (it is overwritten before any read on the path that runs it); the path
that continued still carries the variable's value from before into the next iteration (fuzzer
finding 4001-1822: it was taken for unbound there)."""
import agc
import agc.numpy as np


@agc.export
def skip_dead_update(x0: agc.f32["B"], x1: agc.f32["B"]):
    for i1 in range(2):
        if np.any(x1 > 2.0):
            pass
        else:
            v3 = x1
            if np.sum(x0) < 0.75:
                continue
            x1 = x1 * 2.0
        x1 = v3 * 0.5
    return x1 + x0


@agc.export
def skip_in_staged_loop(x0: agc.f32["B"], x1: agc.f32["B"], n: agc.i32[()]):
    i = 0
    while i < n:
        i = i + 1
        v = x1 + 1.0
        if np.sum(x0) < 0.5 * i:
            continue
        x1 = x1 * 3.0
        x1 = v
    return x1


def agc_test_inputs(export_name, rng, dims):
    b = dims["B"]
    x1 = rng.uniform(-1.0, 1.0, b).astype(np.float32)
    # first dims set: the sums are negative (every iteration continues); second: positive
    sign = -1.0 if b % 2 else 1.0
    x0 = (sign * np.abs(rng.standard_normal(b)) - sign * 0.01).astype(np.float32)
    if export_name == "skip_dead_update":
        return [x0, x1]
    return [x0, x1, np.int32(4)]
