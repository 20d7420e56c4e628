"""Hyperparameters that are None or a number: `if clip is not None`, `if dropout`, unrolled at compile time."""
import agc
import agc.numpy as np


@agc.export(name="no_clip", clip=None, temperature=1.0)
@agc.export(name="clip_one", clip=1.0, temperature=1.0)
@agc.export(name="clip_hot", clip=0.5, temperature=0.25)
def logits(x: agc.f32["B", 5], clip=None, temperature=1.0):
    if clip is not None:
        x = np.clip(x, -clip, clip)
    if temperature != 1.0:
        x = x / temperature
    z = x - np.max(x, axis=1, keepdims=True)
    e = np.exp(z)
    return e / np.sum(e, axis=1, keepdims=True)
