"""collections.namedtuple as a compile-time class whose fields hold tensors: construction
(positional, keywords, defaults), attributes, indexing, unpacking, _replace/_asdict/_make,
isinstance, and namedtuples as the state of staged loops and branches."""
import collections
from collections import namedtuple

import agc
import agc.numpy as np

Params = namedtuple("Params", ["w", "b"])
State = collections.namedtuple("State", "h c", defaults=(None,))
Config = namedtuple("Config", "scale, shift")
CONFIG = Config(scale=2.0, shift=-1)


def dense(p, x):
    return x @ p.w + p.b


@agc.export
def fields_and_methods(x: agc.f32[4, 3], w: agc.f32[3, 2], b: agc.f32[2]):
    p = Params(w, b=b)
    q = p._replace(b=p.b * CONFIG.scale + CONFIG.shift)
    w2, b2 = q
    d = q._asdict()
    first, *rest = p
    n = len(p) + len(rest) + len(Params._fields)
    same_type = isinstance(p, tuple) and isinstance(p, Params) and not isinstance(p, Config)
    return dense(q, x) + np.sum(w2 - first), q[1] + b2 + d["b"] + q[-1] * n, same_type


@agc.export
def loop_state(xs: agc.f32["T", 3], h0: agc.f32[3]):
    s = State(h0, h0 * 0)
    for x in xs:
        s = State(np.tanh(s.h + x), s.c + s.h)
    return s


@agc.export
def branch_state(x: agc.f32[3]):
    if np.sum(x) > 0:
        s = State(x, x * 2)
    else:
        s = State(c=x, h=-x)
    return s.h + s.c, State._make([x, x + 1]).c, State(x).c is None
