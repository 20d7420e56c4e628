"""TensorFlow TreeLSTM training: one tf.function (traced once, the node count is a run-time
dim) per tree: a while loop over the nodes bottom-up (k = n-1 .. 0) with TensorArrays of
states and tf.cond between the cells, a GradientTape, and assign_sub on tf.Variables."""

import numpy as np
import tensorflow as tf

from workload import H, LR, PARAMS


def setup(case, data, variant):
    emb = tf.constant(data["emb"])
    initial = [data["params"][k] for k in PARAMS]
    params = [tf.Variable(p) for p in initial]
    # int32 indices: TensorArray sizes and positions are int32
    trees = [tuple(tf.constant(t[k].astype("int32")) for k in ("left", "right", "word", "label"))
             for t in data["trees"]]
    wx, bx, u, bu, ws, bs = params
    index = tf.TensorSpec([None], tf.int32)

    @tf.function(input_signature=[index, index, index, tf.TensorSpec([], tf.int32)])
    def train_step(left, right, word, label):
        n = tf.shape(left)[0]
        with tf.GradientTape() as tape:
            hs = tf.TensorArray(tf.float32, size=n, clear_after_read=False, element_shape=[1, H])
            cs = tf.TensorArray(tf.float32, size=n, clear_after_read=False, element_shape=[1, H])
            for k in tf.range(n - 1, -1, -1):
                if left[k] < 0:
                    i, o, g = tf.split(emb[word[k]][tf.newaxis] @ wx + bx, 3, axis=1)
                    c = tf.sigmoid(i) * tf.tanh(g)
                else:
                    l, r = left[k], right[k]
                    z = tf.concat([hs.read(l), hs.read(r)], axis=1) @ u + bu
                    i, fl, fr, o, g = tf.split(z, 5, axis=1)
                    c = tf.sigmoid(i) * tf.tanh(g) + tf.sigmoid(fl) * cs.read(l) + tf.sigmoid(fr) * cs.read(r)
                hs = hs.write(k, tf.sigmoid(o) * tf.tanh(c))
                cs = cs.write(k, c)
            logits = (hs.read(0) @ ws + bs)[0]
            loss = -tf.nn.log_softmax(logits)[label]
        grads = tape.gradient(loss, params)
        for p, g in zip(params, grads):
            p.assign_sub(LR * g)
        return loss

    class Impl:
        def result(self):
            for p, p0 in zip(params, initial):
                p.assign(p0)
            losses = [float(train_step(*t)) for t in trees]
            return [np.array(losses, np.float32), *[p.numpy() for p in params]]

        def run(self):
            for t in trees:
                train_step(*t)

    return Impl()
