"""A two-layer perceptron for 28x28 digit images: agc compiles `predict` into libmlp.so.

    agc build examples/mlp.py -o build/
    cc examples/main.c -Ibuild -Lbuild -lmlp -o build/mlp_demo
    LD_LIBRARY_PATH=build build/mlp_demo

The same file runs under CPython: `predict` is plain numpy in eager mode.
"""
import agc
import agc.numpy as np

PIXELS, HIDDEN, CLASSES = 784, 128, 10


def relu(x):
    return np.maximum(x, 0)


def softmax(logits):
    shifted = logits - np.max(logits, axis=-1, keepdims=True)   # no overflow in exp
    e = np.exp(shifted)
    return e / np.sum(e, axis=-1, keepdims=True)


@agc.export
def predict(x: agc.f32["B", PIXELS],
            w1: agc.f32[PIXELS, HIDDEN], b1: agc.f32[HIDDEN],
            w2: agc.f32[HIDDEN, CLASSES], b2: agc.f32[CLASSES]):
    """Class probabilities (each row sums to 1) for a batch of B flattened images."""
    hidden = relu(x @ w1 + b1)
    return softmax(hidden @ w2 + b2)


if __name__ == "__main__":
    rng = np.random.default_rng(0)
    x = rng.uniform(0, 1, size=(4, PIXELS)).astype(np.float32)
    w1 = (rng.standard_normal((PIXELS, HIDDEN)) * 0.05).astype(np.float32)
    w2 = (rng.standard_normal((HIDDEN, CLASSES)) * 0.1).astype(np.float32)
    probs = predict(x, w1, np.zeros(HIDDEN, np.float32), w2, np.zeros(CLASSES, np.float32))
    print(probs.round(4), probs.argmax(axis=1))
