"""Gradients through integer-array indexing: an embedding lookup E[ids] with repeated
(and negative) ids, whose contributions accumulate, take along axis 1 and on the
flattened array, and a lookup with a symbolic number of ids."""
import agc
import agc.numpy as np


def bag_of_words(E, W, ids):
    h = np.tanh(E[ids] @ W)
    return np.sum(h * h) + np.sum(np.take(E, ids[:2], axis=0))


def columns(x, ids):
    return np.sum(np.sin(np.take(x, ids, axis=1))) + np.sum(x.take(ids) ** 2) + np.sum(x[:, [1, 1, 0]])


@agc.export
def bag_grad(E: agc.f64[6, 3], W: agc.f64[3, 2], ids: agc.i64["T"]):
    return agc.grad(bag_of_words, argnums=(0, 1))(E, W, ids)


@agc.export
def columns_grad(x: agc.f32[4, 5], ids: agc.i32[2, 3]):
    return agc.value_and_grad(columns)(x, ids)


# autograd has no VJP for np.take: the eager oracle runs the same losses written
# with subscripts (finite differences still use the losses above).
def bag_of_words_subscripts(E, W, ids):
    h = np.tanh(E[ids] @ W)
    return np.sum(h * h) + np.sum(E[ids[:2]])


def columns_subscripts(x, ids):
    return np.sum(np.sin(x[:, ids])) + np.sum(np.ravel(x)[ids] ** 2) + np.sum(x[:, [1, 1, 0]])


def bag_grad_eager(E, W, ids):
    return agc.grad(bag_of_words_subscripts, argnums=(0, 1))(E, W, ids)


def columns_grad_eager(x, ids):
    return agc.value_and_grad(columns_subscripts)(x, ids)


AGC_GRAD_CHECKS = {
    "bag_grad": ("bag_of_words", (0, 1), {"eager": "bag_grad_eager"}),
    "columns_grad": ("columns", 0, {"value": True, "eager": "columns_grad_eager"}),
}


def agc_grad_inputs(name, rng):
    if name == "bag_grad":
        E, W = rng.standard_normal((6, 3)), rng.standard_normal((3, 2))
        return [[E, W, np.array(ids, dtype=np.int64)] for ids in ([0, 2, 2, 5, -1], [3, 3, 3], [1, -6])]
    x = rng.standard_normal((4, 5)).astype(np.float32)
    return [[x, np.array([[0, 4, 4], [-1, 2, 0]], dtype=np.int32)]]
