"""agc fuzz reproducer 4005-302 (attempt 0) shrunk: rejected (build).

    need at least one array to concatenate
"""
import agc
import agc.numpy as np


@agc.export
def p302_f(x0: agc.f32[4, 2], x1: agc.f32['B'], n: agc.i32[()]):
    if np.mean(x0) < 2.0:
        pass
    else:
        acc3 = []
        v5 = np.stack(acc3)
    return (x1,)


# The inputs of the failing call (input set 0), as tests/harness.py's hook wants them.
AGC_FUZZ_INPUTS = {
    'p302_f': [
        np.array([[-1.0079289674758911, -0.5644442439079285], [-1.001915454864502, 0.469576895236969], [-0.019238140434026718, -1.3904436826705933], [0.4755481779575348, -0.46710124611854553]], dtype=np.float32),
        np.array([0.9463523030281067, -1.2629127502441406, -0.6054577231407166, -0.061272721737623215], dtype=np.float32),
        np.array(3, dtype=np.int32),
    ],
}


def agc_test_inputs(export_name, rng, dims):
    return AGC_FUZZ_INPUTS.get(export_name)
