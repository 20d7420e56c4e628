"""JAX TreeLSTM training: a jitted step per tree; the tree is a lax.scan over its nodes bottom-up
(k = n-1 .. 0; lax.cond between the leaf and the inner-node cell, states kept in [n, H] buffers),
so one compiled program serves every tree of the same size (the warm-up compiles each size)."""

import jax
import jax.numpy as jnp
import numpy as np

from workload import H, LR, PARAMS


def loss_fn(params, emb, left, right, word, label):
    wx, bx, u, bu, ws, bs = params
    n = left.shape[0]

    def step(carry, k):
        hs, cs = carry

        def leaf(_):
            i, o, g = jnp.split(emb[word[k]] @ wx + bx, 3)
            c = jax.nn.sigmoid(i) * jnp.tanh(g)
            return jax.nn.sigmoid(o) * jnp.tanh(c), c

        def inner(_):
            l, r = left[k], right[k]
            i, fl, fr, o, g = jnp.split(jnp.concatenate([hs[l], hs[r]]) @ u + bu, 5)
            c = jax.nn.sigmoid(i) * jnp.tanh(g) + jax.nn.sigmoid(fl) * cs[l] + jax.nn.sigmoid(fr) * cs[r]
            return jax.nn.sigmoid(o) * jnp.tanh(c), c

        h, c = jax.lax.cond(left[k] < 0, leaf, inner, None)
        return (hs.at[k].set(h), cs.at[k].set(c)), None

    zeros = jnp.zeros((n, H), jnp.float32)
    (hs, _), _ = jax.lax.scan(step, (zeros, zeros), jnp.arange(n - 1, -1, -1))
    return -jax.nn.log_softmax(hs[0] @ ws + bs)[label]


@jax.jit
def train_step(params, emb, left, right, word, label):
    loss, grads = jax.value_and_grad(loss_fn)(params, emb, left, right, word, label)
    return loss, [p - LR * g for p, g in zip(params, grads)]


def setup(case, data, variant):
    emb = jax.device_put(data["emb"])
    initial = [jax.device_put(data["params"][k]) for k in PARAMS]
    trees = [tuple(jax.device_put(t[k]) for k in ("left", "right", "word", "label")) for t in data["trees"]]
    state = {"params": initial}

    class Impl:
        def result(self):
            state["params"] = initial
            losses = []
            for t in trees:
                loss, state["params"] = train_step(state["params"], emb, *t)
                losses.append(float(loss))
            return [np.array(losses, np.float32), *[np.asarray(p) for p in state["params"]]]

        def run(self):
            for t in trees:
                _, state["params"] = train_step(state["params"], emb, *t)
            jax.block_until_ready(state["params"])

    return Impl()
