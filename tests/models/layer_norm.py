"""Layer normalisation over the last axis with learned gain and bias; also an RMS norm."""
import agc
import agc.numpy as np

EPS = 1e-5


def layer_norm(x, gamma, beta, eps=EPS):
    mu = np.mean(x, axis=-1, keepdims=True)
    var = np.mean((x - mu) ** 2, axis=-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * gamma + beta


@agc.export
def layernorm(x: agc.f32["B", "T", 16], gamma: agc.f32[16], beta: agc.f32[16]):
    return layer_norm(x, gamma, beta)


@agc.export
def rmsnorm(x: agc.f32["B", 16], gamma: agc.f32[16]):
    return x / np.sqrt(np.mean(x * x, axis=1, keepdims=True) + EPS) * gamma


AGC_TEST_DIMS = {"B": 3, "T": 4}
