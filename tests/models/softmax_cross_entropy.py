"""Softmax cross-entropy from logits and integer labels (one-hot by comparison with arange)."""
import agc
import agc.numpy as np

C = 7


def log_softmax(z):
    m = np.max(z, axis=1, keepdims=True)
    s = z - m
    return s - np.log(np.sum(np.exp(s), axis=1, keepdims=True))


@agc.export
def cross_entropy(logits: agc.f32["B", C], labels: agc.i32["B"]):
    onehot = (labels[:, None] == np.arange(C)).astype(np.float32)
    per_example = -np.sum(onehot * log_softmax(logits), axis=1)
    return np.mean(per_example), per_example


@agc.export
def accuracy(logits: agc.f32["B", C], labels: agc.i32["B"]):
    pred = np.argmax(logits, axis=1)
    return np.mean((pred == labels).astype(np.float32))


def agc_test_inputs(export_name, rng, dims):
    b = dims["B"]
    return [3 * rng.standard_normal((b, C)).astype(np.float32),
            rng.integers(0, C, size=b).astype(np.int32)]


AGC_TEST_DIMS = {"B": 9}
