"""A staged `while` carrying state of several dtypes and shapes (f32 vector, f64 scalar, i32, bool)."""
import agc
import agc.numpy as np


@agc.export
def power_iteration(a: agc.f32["N", "N"], tol: agc.f64[()]):
    v = np.ones(a.shape[0], dtype=np.float32) / np.sqrt(np.float32(a.shape[0]))
    lam = np.zeros((), dtype=np.float64)
    it = np.zeros((), dtype=np.int32)
    converged = np.zeros((), dtype=np.bool_)
    while not converged and it < 200:
        w = a @ v
        v = w / np.sqrt(np.sum(w * w))
        new = np.sum(v * (a @ v)).astype(np.float64)
        converged = np.abs(new - lam) < tol
        lam = new
        it = it + 1
    # lam is float64 but computed in float32: compare it to float32 accuracy (its last bits
    # depend on the order of the float32 matrix-vector products, BLAS's or agc's).
    return v, np.round(lam, 5), it, converged


def agc_test_inputs(export_name, rng, dims):
    n = dims["N"]
    q, _ = np.linalg.qr(rng.standard_normal((n, n)))
    eig = np.linspace(1.0, 3.0, n) if n > 1 else np.array([2.0])
    a = (q * eig) @ q.T
    return [a.astype(np.float32), np.float64(1e-4)]
