"""JAX sgemm: jit(jnp.matmul) on device arrays, waited for with block_until_ready."""

import jax
import jax.numpy as jnp
import numpy as np


def setup(case, data, variant):
    a = jax.device_put(data["a"])
    b = jax.device_put(data["b"])
    mm = jax.jit(jnp.matmul)

    class Impl:
        def result(self):
            return [np.asarray(mm(a, b))]

        def run(self):
            mm(a, b).block_until_ready()

    return Impl()
