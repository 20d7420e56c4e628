"""A staged `if` whose branches hold staged loops with `if`s inside them."""
import agc
import agc.numpy as np


@agc.export
def branchy(x: agc.f32["N"], mode: agc.i32[()]):
    acc = np.zeros((), dtype=np.float32)
    if mode > 0:
        for i in range(x.shape[0]):
            if x[i] > 0:
                acc = acc + x[i]
            else:
                acc = acc * 0.5
    elif mode < 0:
        i = 0
        while i < x.shape[0]:
            if x[i] < 0:
                acc = acc - x[i]
            i += 1
    else:
        acc = np.sum(x)
    return acc


@agc.export(name="branchy_pos")
@agc.export(name="branchy_neg")
@agc.export(name="branchy_zero")
def branchy_cases(x: agc.f32["N"], mode: agc.i32[()]):
    return branchy(x, mode)


def agc_test_inputs(export_name, rng, dims):
    x = rng.standard_normal(dims["N"]).astype(np.float32)
    mode = {"branchy_pos": 1, "branchy_neg": -1, "branchy_zero": 0}.get(export_name)
    if mode is None:
        mode = 1 if dims["N"] % 2 else -1
    return [x, np.int32(mode)]


AGC_TEST_DIMS = {"N": 9}
