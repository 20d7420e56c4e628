"""The MLP of train_mlp.py, its weights read from mlp.safetensors at build time."""
import agc
import agc.numpy as np

P = agc.weights("mlp.safetensors")


@agc.export
def predict(x: agc.f32["B", 2]):
    """Class probabilities of each point."""
    h = np.tanh(x @ P["W1"] + P["b1"])
    logits = h @ P["W2"] + P["b2"]
    e = np.exp(logits - np.max(logits, axis=1, keepdims=True))
    return e / np.sum(e, axis=1, keepdims=True)
