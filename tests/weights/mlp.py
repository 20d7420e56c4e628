"""A two-layer MLP, a recursion and an embedding lookup reading their parameters from weight files.

The files are written by tests/test_weights.py next to a copy of this model: `params.npz`
or `params.safetensors` (W1 f32[16,32], b1 f32[32], W2 f32[32,4] stored column-major in
the npz, b2 f32[4]) and `tables.safetensors` (E f64[10,3], ids i32[5], keep bool[5],
offsets i64[2]). `PARAMS` names the first file; the test rewrites it per format.
"""
import agc
import agc.numpy as np

PARAMS = "params.npz"
P = agc.weights(PARAMS)
T = agc.weights("tables.safetensors")


@agc.export
def predict(x: agc.f32["B", 16]):
    h = np.tanh(x @ P["W1"] + P["b1"])
    return h @ P["W2"] + P["b2"]


def _repeat(n, h):
    if n <= 0:
        return h
    return _repeat(n - 1, np.tanh(h @ P["W1"][:, :16]))


@agc.export
def iterate(x: agc.f32[2, 16], n: agc.i64[()]):
    return _repeat(n, x)


@agc.export
def lookup(scale: agc.f64[()]):
    rows = np.take(T["E"], T["ids"], axis=0)
    rows = np.where(T["keep"][:, None], rows, 0.0)
    return scale * rows + T["offsets"][1]


def _loss(x, y):
    return np.sum((predict(x) - y) ** 2)


@agc.export
def input_grad(x: agc.f32["B", 16], y: agc.f32["B", 4]):
    return agc.grad(_loss)(x, y)


def agc_test_inputs(export_name, rng, dims):
    if export_name == "iterate":
        return [rng.standard_normal((2, 16)).astype(np.float32), np.int64(3)]
    return None
