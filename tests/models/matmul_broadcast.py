"""matmul with broadcasting over batch dims: 1-D @ 3-D, 3-D @ 1-D, (1,m,k) @ (b,k,n), symbolic batch."""
import agc
import agc.numpy as np


@agc.export
def vector_and_batch(v: agc.f32[4], a: agc.f32[2, 4, 3], u: agc.f32[3]):
    return v @ a, a @ u


@agc.export
def broadcast_batch(a: agc.f32[1, 5, 4], b: agc.f32[3, 4, 2]):
    return a @ b, np.matmul(b.transpose(0, 2, 1), a.transpose(0, 2, 1))


@agc.export
def symbolic_batch(x: agc.f32["B", 6, 4], y: agc.f32["B", 4, 5]):
    return x @ y
