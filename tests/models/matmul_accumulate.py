"""An add of a small product accumulates into the other operand: the accumulator read again
afterwards, the accumulator an operand of the product itself, outer products (depth 1),
vector-matrix products, integers, and a product used twice (not fused)."""
import agc
import agc.numpy as np


@agc.export
def acc_read_again(acc: agc.f32[3, 5], x: agc.f32[3, 1], y: agc.f32[1, 5]):
    s = acc + x @ y
    return s, acc * 2.0


@agc.export
def acc_is_operand(a: agc.f32[3, 3], b: agc.f32[3, 3]):
    return a + a @ b, b @ a + a


@agc.export
def outer_then_vector(g: agc.f32[4, 6], u: agc.f32[4], v: agc.f32[6], w: agc.f32[6, 2]):
    g2 = g + np.outer(u, v)
    h = np.ones(2, dtype=np.float32) + v @ w
    return g2, h


@agc.export
def symbolic_rows(acc: agc.f32["N", 7], x: agc.f32["N", 2], y: agc.f32[2, 7]):
    return x @ y + acc


@agc.export
def ints_and_shared_product(acc: agc.i64[2, 3], a: agc.i64[2, 2], b: agc.i64[2, 3]):
    p = a @ b
    return acc + p, p - acc
