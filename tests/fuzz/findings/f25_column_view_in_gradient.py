"""agc fuzz F25 (tests/fuzz/FINDINGS.md): seed 1501, program 12, shrunk. A column of a matrix
(`np.zeros((2, 2))[:, -2]`) was a view (`extract_slice`) whose strides are not row-major; passed
to a continuation taking a row-major buffer, it failed bufferization (internal error, exit 2):
"'memref.alloc' op symbol operand count does not equal memref symbol count"."""
import agc
import agc.numpy as np


def p12_loss1(x0):
    v3 = np.zeros((2, 2))[:, -2]
    if np.sum(x0) > 1.0:
        pass
    else:
        v4 = np.roll(x0, 1)
    return np.sum(v3 + x0)

@agc.export
def p12_f(x0: agc.f32[2]):
    value, grads = agc.value_and_grad(p12_loss1, argnums=0)(x0)
    return (grads,)


# The inputs of the failing call (input set 0), as tests/harness.py's hook wants them.
AGC_FUZZ_INPUTS = {
    'p12_f': [
        np.array([-0.7199550867080688, -0.22149209678173065], dtype=np.float32),
    ],
}


def agc_test_inputs(export_name, rng, dims):
    return AGC_FUZZ_INPUTS.get(export_name)
