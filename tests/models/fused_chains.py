"""Long elementwise chains with broadcasting mid-chain and values consumed several times (diamonds)."""
import agc
import agc.numpy as np


@agc.export
def long_chain(x: agc.f32["B", 8], v: agc.f32[8]):
    y = x
    for k in range(12):
        y = np.tanh(y * (1.0 + 0.1 * k) + v) - 0.05 * y
    return y


@agc.export
def diamonds(x: agc.f32[5, 7]):
    a = np.exp(-x * x)
    b = a * 2 + 1
    c = a - 3
    d = b * c
    s = np.sum(d, axis=1, keepdims=True)
    return d / s, a + b + c + d, s


@agc.export
def reduce_then_broadcast(x: agc.f32["B", 16]):
    mu = x.mean(axis=1, keepdims=True)
    sd = np.sqrt(((x - mu) ** 2).mean(axis=1, keepdims=True))
    z = (x - mu) / (sd + 1e-3)
    return z * np.max(np.abs(z), axis=0) + np.min(z, axis=1, keepdims=True)
