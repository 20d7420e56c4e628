"""float64 arithmetic and transcendental functions (checked at ~1e-10 relative)."""
import agc
import numpy as np


@agc.export
def arith64(x: agc.f64[4, 3], y: agc.f64[4, 3]):
    return (x * y + x / (y * y + 1.0)) - 0.1


@agc.export
def transcendental64(x: agc.f64[6]):
    return np.exp(x) + np.tanh(x) * np.log(np.abs(x) + 1.0) - np.sqrt(x * x + 2.0)


@agc.export
def matmul64(a: agc.f64[5, 7], b: agc.f64[7, 3]):
    return a @ b
