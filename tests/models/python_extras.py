"""Less common compile-time Python: *args/**kwargs, starred unpacking, properties, reversed/sorted/min/max/abs builtins, str methods."""
import agc
import agc.numpy as np

NAMES = ["gamma", "alpha", "beta"]


def combine(*terms, weight=2.0):
    total = terms[0]
    for t in terms[1:]:
        total = total + t
    return total * weight


def apply(fn, x, **kwargs):
    return fn(x, **kwargs)


def affine(x, w, scale=1.0):
    return (x @ w) * scale


class Box:
    def __init__(self, value):
        self._value = value

    @property
    def doubled(self):
        return self._value * 2


@agc.export
def varargs(x: agc.f32[4], y: agc.f32[4], z: agc.f32[4]):
    args = (x, y, z)
    return combine(*args), combine(x, y, weight=-1.0)


@agc.export
def forwarded_kwargs(x: agc.f32[4, 3], w: agc.f32[3, 5]):
    opts = {"scale": 3.0}
    return apply(affine, x, w=w, **opts)


@agc.export
def starred(a: agc.f32[2], b: agc.f32[2], c: agc.f32[2]):
    first, *rest = (a, b, c)
    return first - rest[0] * rest[1]


@agc.export
def builtins_and_strings(x: agc.f32[3]):
    order = sorted(NAMES)
    k = order.index("beta") + max(1, 2) + min(4, 3) + abs(-2)
    tag = "-".join(order).upper()
    out = x * k + len(tag)
    for i in reversed(range(2)):
        out = out - i
    return Box(out).doubled
