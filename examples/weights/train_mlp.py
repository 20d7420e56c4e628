"""Trains a small MLP with numpy (two interleaved spirals, 2 -> 32 -> 2) and saves its weights
to mlp.safetensors, as a model trained elsewhere would be shipped."""
import numpy as np
import safetensors.numpy

rng = np.random.default_rng(0)
n = 400
t = rng.uniform(0.5, 3.0, n)
label = rng.integers(0, 2, n)
angle = t * 2.5 + np.pi * label
x = np.stack([t * np.cos(angle), t * np.sin(angle)], 1) + rng.normal(0, 0.05, (n, 2))

W1 = rng.normal(0, 0.5, (2, 32))
b1 = np.zeros(32)
W2 = rng.normal(0, 0.5, (32, 2))
b2 = np.zeros(2)
for step in range(3000):
    h = np.tanh(x @ W1 + b1)
    logits = h @ W2 + b2
    p = np.exp(logits - logits.max(1, keepdims=True))
    p /= p.sum(1, keepdims=True)
    d = (p - np.eye(2)[label]) / n
    gW2, gb2 = h.T @ d, d.sum(0)
    dh = (d @ W2.T) * (1 - h * h)
    gW1, gb1 = x.T @ dh, dh.sum(0)
    for w, g in ((W1, gW1), (b1, gb1), (W2, gW2), (b2, gb2)):
        w -= 0.5 * g
accuracy = (p.argmax(1) == label).mean()
print(f"trained: accuracy {accuracy:.3f}")
safetensors.numpy.save_file({k: v.astype(np.float32) for k, v in
                             {"W1": W1, "b1": b1, "W2": W2, "b2": b2}.items()}, "mlp.safetensors")
