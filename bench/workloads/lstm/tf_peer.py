"""TensorFlow LSTM: a tf.function whose Python loop over the static T unrolls into one graph."""

import tensorflow as tf


def setup(case, data, variant):
    xs, w, u, b = (tf.constant(data[k]) for k in ("xs", "w", "u", "b"))
    hidden = int(u.shape[0])
    steps = int(xs.shape[0])

    @tf.function
    def forward(xs, w, u, b):
        h = tf.zeros((xs.shape[1], hidden))
        c = tf.zeros((xs.shape[1], hidden))
        outs = []
        for t in range(steps):
            g = xs[t] @ w + h @ u + b
            i, f, cand, o = tf.split(g, 4, axis=1)
            c = tf.sigmoid(f) * c + tf.sigmoid(i) * tf.tanh(cand)
            h = tf.sigmoid(o) * tf.tanh(c)
            outs.append(h)
        return tf.stack(outs), c

    class Impl:
        def result(self):
            return [t.numpy() for t in forward(xs, w, u, b)]

        def run(self):
            forward(xs, w, u, b)

    return Impl()
