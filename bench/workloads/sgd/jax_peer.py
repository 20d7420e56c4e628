"""JAX SGD loop: the whole loop in one jit (lax.fori_loop over value_and_grad steps)."""

from functools import partial

import jax
import jax.numpy as jnp
import numpy as np

from workload import LR


def loss_fn(w, b, x, y):
    logp = jax.nn.log_softmax(x @ w + b, axis=1)
    return -jnp.mean(jnp.take_along_axis(logp, y[:, None], axis=1))


@partial(jax.jit, static_argnums=4)
def train(w, b, xs, ys, steps):
    nb = xs.shape[0]

    def body(s, carry):
        w, b, _ = carry
        k = s % nb
        loss, (gw, gb) = jax.value_and_grad(loss_fn, argnums=(0, 1))(w, b, xs[k], ys[k])
        return w - LR * gw, b - LR * gb, loss

    return jax.lax.fori_loop(0, steps, body, (w, b, jnp.float32(0)))


def setup(case, data, variant):
    args = [jax.device_put(data[k]) for k in ("w", "b", "xs", "ys")]
    steps = int(data["steps"])

    class Impl:
        def result(self):
            return [np.asarray(t) for t in train(*args, steps)]

        def run(self):
            jax.block_until_ready(train(*args, steps))

    return Impl()
