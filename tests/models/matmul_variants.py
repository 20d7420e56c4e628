"""`@`, np.matmul and np.dot over 2-D/1-D operands, batched (3-D @ 2-D) and vector-vector (a scalar)."""
import agc
import agc.numpy as np


@agc.export
def mat_mat(a: agc.f32[4, 6], b: agc.f32[6, 3]):
    return a @ b, np.matmul(a, b), np.dot(a, b)


@agc.export
def mat_vec(a: agc.f32[4, 6], v: agc.f32[6], u: agc.f32[4]):
    return a @ v, u @ a, v @ v, np.dot(u, u)


@agc.export
def batched(x: agc.f32[2, 4, 6], w: agc.f32[6, 5], y: agc.f32[2, 5, 3]):
    h = x @ w
    return h, h @ y


@agc.export
def transposed_operands(a: agc.f32[6, 4], b: agc.f32[3, 6]):
    return a.T @ b.T, (b @ a).T
