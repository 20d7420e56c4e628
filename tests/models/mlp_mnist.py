"""An MNIST-sized MLP 784 -> 128 -> 10 with relu and a numerically stable softmax; symbolic batch."""
import agc
import agc.numpy as np

IN, HIDDEN, OUT = 784, 128, 10


def relu(x):
    return np.maximum(x, 0)


def softmax(z, axis=-1):
    z = z - np.max(z, axis=axis, keepdims=True)
    e = np.exp(z)
    return e / np.sum(e, axis=axis, keepdims=True)


@agc.export
def predict(x: agc.f32["B", IN], w1: agc.f32[IN, HIDDEN], b1: agc.f32[HIDDEN],
            w2: agc.f32[HIDDEN, OUT], b2: agc.f32[OUT]):
    """Class probabilities for a batch of flattened 28x28 images."""
    h = relu(x @ w1 + b1)
    return softmax(h @ w2 + b2)


@agc.export
def predict_labels(x: agc.f32["B", IN], w1: agc.f32[IN, HIDDEN], b1: agc.f32[HIDDEN],
                   w2: agc.f32[HIDDEN, OUT], b2: agc.f32[OUT]):
    logits = relu(x @ w1 + b1) @ w2 + b2
    return np.argmax(logits, axis=1), np.max(softmax(logits), axis=1)


def agc_test_inputs(export_name, rng, dims):
    b = dims["B"]
    # Glorot-scaled weights keep the logits O(1), as in a trained network.
    return [rng.uniform(0, 1, size=(b, IN)).astype(np.float32),
            (rng.standard_normal((IN, HIDDEN)) / np.sqrt(IN)).astype(np.float32),
            (0.1 * rng.standard_normal(HIDDEN)).astype(np.float32),
            (rng.standard_normal((HIDDEN, OUT)) / np.sqrt(HIDDEN)).astype(np.float32),
            (0.1 * rng.standard_normal(OUT)).astype(np.float32)]


AGC_TEST_DIMS = {"B": 16}
