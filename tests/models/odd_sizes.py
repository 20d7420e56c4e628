"""Sizes that are not multiples of any vector width or tile: odd matmuls, long reductions, remainders."""
import agc
import agc.numpy as np


@agc.export
def odd_matmul(a: agc.f32[67, 129], b: agc.f32[129, 33]):
    return a @ b


@agc.export
def odd_batched_matmul(a: agc.f32[3, 17, 31], b: agc.f32[3, 31, 5]):
    return a @ b


@agc.export
def long_reductions(x: agc.f32[1023], m: agc.f64[37, 211]):
    return np.sum(x), np.max(x), np.mean(m, axis=0), np.sum(m, axis=1), np.argmax(m, axis=0)


@agc.export
def elementwise_remainders(x: agc.f32[1031], y: agc.f32[1031]):
    return np.tanh(x) * y + np.exp(-x * x), np.maximum(x, y) - np.minimum(x, y)


@agc.export
def odd_transpose(x: agc.f32[13, 7, 5]):
    return np.transpose(x, (2, 0, 1)) * 2, x.reshape(5, 91).T


@agc.export
def tall_skinny(x: agc.f32["B", 3], w: agc.f32[3, 1]):
    return x @ w, w.T @ x.T


AGC_TEST_DIMS = {"B": 1001}
