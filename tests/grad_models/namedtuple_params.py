"""agc.grad with respect to a namedtuple of parameters: the gradient is a namedtuple of the same class (float32)."""
from collections import namedtuple

import autograd.numpy as anp
from autograd import grad

import agc
import agc.numpy as np

Params = namedtuple("Params", ["w", "b"])


def dense(p, x):
    return x @ p.w + p.b


def loss(p, x):
    return np.sum(np.tanh(dense(p, x)) ** 2)


@agc.export
def params_grad(x: agc.f32[4, 3], w: agc.f32[3, 2], b: agc.f32[2]):
    g = agc.grad(loss)(Params(w, b), x)
    return g.w * 1.0, g.b


def loss_args(x, w, b):
    return (Params(w, b), x)


def eager_params_grad(x, w, b):
    # autograd differentiates tuples, not namedtuples: the same loss on a plain tuple
    g = grad(lambda wb: anp.sum(anp.tanh(x @ wb[0] + wb[1]) ** 2))((w, b))
    return g[0], g[1]


AGC_GRAD_CHECKS = {"params_grad": ("loss", 0, {"args": "loss_args", "eager": "eager_params_grad"})}
