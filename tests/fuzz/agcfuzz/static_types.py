"""The generator's static types: a dtype and a shape whose dims are ints or symbolic names.

`PYINT` and `PYFLOAT` are Python scalars: numpy 2 promotes them "weakly"
(`f32 + 0.5` stays f32), and eager mode keeps them Python objects until they
meet an array, so they are tracked apart from `i64`/`f64` 0-d arrays.
"""

from typing import NamedTuple

F32, F64, I32, I64, BOOL = "f32", "f64", "i32", "i64", "bool"
PYINT, PYFLOAT = "pyint", "pyfloat"

FLOATS = (F32, F64)
NP_NAME = {F32: "np.float32", F64: "np.float64", I32: "np.int32", I64: "np.int64", BOOL: "np.bool_"}
SPEC_NAME = {F32: "f32", F64: "f64", I32: "i32", I64: "i64", BOOL: "bool_"}
NUMPY_DTYPE = {F32: "float32", F64: "float64", I32: "int32", I64: "int64", BOOL: "bool"}


class Ty(NamedTuple):
    dt: str
    shape: tuple = ()

    @property
    def rank(self):
        return len(self.shape)

    def with_shape(self, shape):
        return Ty(self.dt, tuple(shape))

    def with_dt(self, dt):
        return Ty(dt, self.shape)

    def __repr__(self):
        return f"{self.dt}{list(self.shape)}"


def promote(a, b):
    """numpy 2's result dtype of an arithmetic op on values of dtypes `a` and `b` (weak Python scalars)."""
    if a == b:
        return a
    for weak, strong in ((a, b), (b, a)):
        if weak == PYFLOAT:
            return strong if strong in FLOATS else (PYFLOAT if strong == PYINT else F64)
        if weak == PYINT:
            return strong
    kinds = {a, b}
    if kinds <= {I32, I64}:
        return I64
    if kinds == {F32, F64}:
        return F64
    if kinds & {I32, I64} and kinds & set(FLOATS):
        return F64
    return None


def broadcast(s1, s2):
    """The broadcast of two shapes, or None (symbolic dims only match themselves or 1)."""
    out = []
    for k in range(max(len(s1), len(s2))):
        d1 = s1[len(s1) - 1 - k] if k < len(s1) else 1
        d2 = s2[len(s2) - 1 - k] if k < len(s2) else 1
        if d1 == d2 or d2 == 1:
            out.append(d1)
        elif d1 == 1:
            out.append(d2)
        else:
            return None
    return tuple(reversed(out))


def sub_broadcast(rng, shape, p_drop=0.35, p_one=0.15):
    """A random shape that broadcasts up to `shape` (leading dims dropped, some dims set to 1)."""
    k = 0
    while k < len(shape) and rng.random() < p_drop:
        k += 1
    rest = [1 if (rng.random() < p_one) else d for d in shape[k:]]
    return tuple(rest)


def concrete(shape, dims):
    return tuple(dims[d] if isinstance(d, str) else d for d in shape)
