"""FINDINGS.md F23 (fuzzer 4008-543, shrunk): a loop-invariant sum inside a staged loop read a
buffer the loop had since overwritten (its to_buffer was hoisted out of the loop).

    expected (eager): float64[] [1.470855]
    actual (agc):     float64[] [3.009673]   (before 82e79e4)
"""
import agc
import agc.numpy as np


@agc.export
def p543_f(x0: agc.f64['B'], x1: agc.f64[()], x2: agc.f64['B', 5], n: agc.i32[()]):
    j1 = 0
    while j1 < n:
        j1 = j1 + 1
        x1 = x2[:, 4].sum()
        x0 = x0 + x2[:, -4]
    return x1


# The inputs of the failing call (input set 0), as tests/harness.py's hook wants them.
AGC_FUZZ_INPUTS = {
    'p543_f': [
        np.array([1.1907504447597148, 0.4532626329328633, 1.3971120566284447], dtype=np.float64),
        np.array(-0.5579202965397146, dtype=np.float64),
        np.array([[0.3626686904798653, 2.8056013635339845, 1.502620928902648, -0.5265948087290053, 1.017945019106159], [-0.2915931819995501, 0.12970471555154126, -0.40709597429873007, -1.0580319001608738, 1.1556636749912994], [2.1593572495263125, 0.07436647529874453, -0.06363547034802267, -1.983685160707132, -0.70275344173864]], dtype=np.float64),
        np.array(2, dtype=np.int32),
    ],
}


def agc_test_inputs(export_name, rng, dims):
    return AGC_FUZZ_INPUTS.get(export_name)
