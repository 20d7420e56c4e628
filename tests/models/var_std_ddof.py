"""np.var and np.std with ddof, axis and keepdims, as numpy divides: by max(n - ddof, 0), so
ddof >= n gives inf or nan; over one element, over run-time sizes, in float32 and float64."""
import agc
import agc.numpy as np

AGC_EXPECTS_FP_EXCEPTIONS = True   # ddof >= n divides by zero, as in numpy


@agc.export
def ddof_over_axes(x: agc.f64["B", "C"]):
    return (np.var(x, ddof=1), np.std(x, axis=0, ddof=1), np.var(x, axis=1, ddof=2, keepdims=True),
            x.std(axis=(0, 1), ddof=3), np.std(x, axis=1))


@agc.export
def one_element_axes(y: agc.f32[4, 1]):
    return (np.std(y, axis=1), np.var(y, axis=1, ddof=1), np.var(y, axis=0, ddof=1),
            np.std(y, ddof=0.5), np.std(y[0], ddof=2))
