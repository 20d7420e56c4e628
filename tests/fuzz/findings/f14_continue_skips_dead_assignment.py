"""agc fuzz reproducer 4001-1822 (attempt 0) shrunk: mismatch (error-status) in p1822_f, input set 0.

    agc.Error: p1822_f: line 7: UnboundLocalError: cannot access local variable 'x1' where it is not associated with a value (line 7): the path taken did not assign it

    expected (eager): float32[2, 2] [-0.380125, -0.368065,  0.438368,  0.696847]
    actual (agc):     error status
"""
import agc
import agc.numpy as np


@agc.export
def p1822_f(x0: agc.f32['T', 2], x1: agc.f32['B']):
    for i1 in range(2):
        v2 = x1
        if np.any(v2 > 2.0):
            pass
        else:
            v3 = x1
            if np.sum(x0) < 0.75:
                continue
            x1 = np.tanh(x1 * -1.25 + ((np.zeros((x1.shape[0], 2), dtype=np.float32) + np.max(x1))[:, i1] + x1 / (np.abs(x1) + 0.25)))
        x1 = v3
    v5 = np.min(x1 + np.zeros((x0.shape[0], 2, x1.shape[0]), dtype=np.float32), axis=-1)
    acc6 = np.zeros((x1.shape[0],), dtype=np.float32)
    return v5 / (abs(0.5) + 1.0) + 0.5 * (np.max(x1) + np.sum(acc6) + x0)


# The inputs of the failing call (input set 0), as tests/harness.py's hook wants them.
AGC_FUZZ_INPUTS = {
    'p1822_f': [
        np.array([[-1.0194294452667236, -0.9953113794326782], [0.6175558567047119, 1.134514570236206]], dtype=np.float32),
        np.array([1.1311243772506714, -0.6539579629898071], dtype=np.float32),
    ],
}


def agc_test_inputs(export_name, rng, dims):
    return AGC_FUZZ_INPUTS.get(export_name)
