"""TensorFlow SGD loop: the whole loop in one tf.function (autograph turns the loop over
tf.range into a while loop; a GradientTape per step)."""

import tensorflow as tf

from workload import LR


@tf.function
def train(w, b, xs, ys, steps):
    nb = tf.shape(xs)[0]
    loss = tf.constant(0.0)
    for s in tf.range(steps):
        k = s % nb
        with tf.GradientTape() as tape:
            tape.watch([w, b])
            z = xs[k] @ w + b
            loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=ys[k], logits=z))
        gw, gb = tape.gradient(loss, [w, b])
        w = w - LR * gw
        b = b - LR * gb
    return w, b, loss


def setup(case, data, variant):
    w, b, xs, ys = (tf.constant(data[k]) for k in ("w", "b", "xs", "ys"))
    steps = tf.constant(int(data["steps"]), tf.int32)

    class Impl:
        def result(self):
            return [t.numpy() for t in train(w, b, xs, ys, steps)]

        def run(self):
            train(w, b, xs, ys, steps)

    return Impl()
