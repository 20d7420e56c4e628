"""TensorFlow sgemm: tf.function(tf.matmul)."""

import tensorflow as tf


def setup(case, data, variant):
    a = tf.constant(data["a"])
    b = tf.constant(data["b"])
    mm = tf.function(tf.matmul)

    class Impl:
        def result(self):
            return [mm(a, b).numpy()]

        def run(self):
            mm(a, b)

    return Impl()
