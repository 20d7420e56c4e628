"""The operator module (arithmetic, comparisons, logic, itemgetter/attrgetter/methodcaller)
and functools.reduce/partial, on compile-time and staged values."""
import operator
from functools import partial, reduce

import agc
import agc.numpy as np


@agc.export
def arithmetic(x: agc.f32[4, 3], w: agc.f32[3, 2]):
    y = operator.matmul(x, w)
    z = operator.add(y, 1.0)
    s = reduce(operator.mul, [2, 3, 4])
    t = operator.methodcaller("sum", axis=0)(x)
    half = partial(operator.truediv, 2.0)
    return (
        operator.truediv(z, s),
        operator.pow(t, 2) - operator.sub(t, 1) + operator.mod(t, 3.0),
        operator.floordiv(t, 0.5) + operator.abs(operator.neg(t)) * half(4.0) + operator.pos(t),
        reduce(operator.add, x, 10.0),
    )


@agc.export
def comparisons_and_logic(x: agc.f32[4, 3], k: agc.i64[4]):
    a, c = operator.itemgetter(0, 2)(x)
    big = operator.gt(a, c)
    return (
        operator.lt(a, c),
        operator.invert(big),
        operator.eq(x, x) & operator.ne(a, 0.5),
        operator.and_(operator.ge(x, 0), operator.le(x, 1)),
        operator.or_(operator.xor(k, 3), operator.lshift(1, 3)),
        operator.not_(operator.contains([1, 2], 3)),
        operator.truth(operator.is_not(None, 0)),
    )


@agc.export
def getters(x: agc.f32[4, 3]):
    second = operator.itemgetter(1)
    rows = operator.itemgetter(slice(1, 3))
    rows_first = operator.attrgetter("shape")(x)[0]
    by_key = sorted([(3, "c"), (1, "a"), (2, "b")], key=operator.itemgetter(0))
    return operator.getitem(x, 1) * rows_first + second(x), rows(x).T, by_key[0][0] + operator.index(2)
