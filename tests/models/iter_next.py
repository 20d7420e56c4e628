"""iter() and next(): over compile-time sequences, generator expressions, map/zip/reversed,
a user iterator class, and the rows of staged tensors (static and run-time length, with defaults)."""
import agc
import agc.numpy as np


class Countdown:
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        return self

    def __next__(self):
        self.n -= 1
        return self.n


@agc.export
def rows_static(x: agc.f32[4, 3]):
    it = iter(x)
    a = next(it)
    b = next(it)
    rest = a * 0
    for r in it:  # the remaining two rows
        rest = rest + r
    return a + b * 2, rest, next(it, np.zeros(3, np.float32))


@agc.export
def rows_runtime(x: agc.f32["N", 3]):
    it = iter(x)
    acc = next(it)
    for r in it:  # a staged loop over rows 1..N-1
        acc = acc * 0.5 + r
    return acc


@agc.export
def rows_default(x: agc.f32["K", 3]):
    it = iter(x)
    a = next(it, np.ones(3, np.float32))
    b = next(it, np.ones(3, np.float32))
    c = next(it, np.full(3, 2.0, np.float32))
    return a + b * 10 + c * 100


@agc.export
def generators(x: agc.f32[5]):
    ws = [0.5, 1.5, 2.5]
    g = (w * x for w in ws)
    first = next(g)
    rest = sum(g)
    big = next((w for w in ws if w > 1), None)
    missing = next((w for w in ws if w > 10), -1.0)
    doubled = map(lambda w: w * 2, ws)
    pairs = zip(ws, reversed(ws))
    p, q = next(pairs)
    c = Countdown(3)
    return first + rest * big * missing, next(doubled) * x, p * q + next(iter(c)) + next(c) + x


@agc.export
def lists_and_tuples(x: agc.f32[2, 3], y: agc.f32[3]):
    it = iter([x, y, x * y])
    a = next(it)
    b = next(it)
    names = iter(("scale", "shift"))
    first = next(names)
    scale = 2.0 if first == "scale" else 1.0
    return a * scale + b, sum(it), next(names)[0] == "s"


AGC_TEST_DIMS = {"K": 2}
