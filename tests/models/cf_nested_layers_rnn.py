"""A stacked RNN: each layer's staged loop runs over the previous layer's stacked outputs (their length is T)."""
import agc
import agc.numpy as np

LAYERS = 3


@agc.export
def stacked_rnn(xs: agc.f32["T", 4], w: agc.f32[3, 4, 4]):
    seq = xs
    for layer in range(LAYERS):
        h = np.zeros(4, dtype=np.float32)
        outs = []
        for t in range(seq.shape[0]):
            h = np.tanh(seq[t] @ w[layer] + h * 0.5)
            outs.append(h)
        seq = np.stack(outs)
    return seq
