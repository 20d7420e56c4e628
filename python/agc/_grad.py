"""Eager `agc.grad` / `agc.value_and_grad`, computed by autograd.

The compiler differentiates the staged program itself; under CPython the
function is re-bound so that its `numpy` (plain or `agc.numpy`) is
`autograd.numpy`, together with the module-level functions and closures it
reaches, and autograd differentiates that.
"""

import functools
import types

from ._errors import Error
from ._variable import Variable


def grad(f, argnums=0):
    """The gradient of scalar-valued `f` with respect to argument(s) `argnums`."""
    vg = value_and_grad(f, argnums)

    @functools.wraps(f)
    def gradient(*args, **kwargs):
        return vg(*args, **kwargs)[1]

    return gradient


def value_and_grad(f, argnums=0):
    """`f`'s value and its gradient with respect to argument(s) `argnums`."""
    single = isinstance(argnums, int)
    nums = (argnums,) if single else tuple(argnums)

    @functools.wraps(f)
    def value_and_gradient(*args, **kwargs):
        try:
            import autograd
        except ImportError as e:
            raise Error("eager agc.grad needs autograd: pip install autograd") from e
        g = _Rebinder(autograd.numpy).rebind(f)
        args = tuple(a.value if isinstance(a, Variable) else a for a in args)

        def packed(diff_args):
            full = list(args)
            for i, v in zip(nums, diff_args):
                full[i] = v
            return g(*full, **kwargs)

        value, grads = autograd.value_and_grad(packed)(tuple(args[i] for i in nums))
        return value, (grads[0] if single else tuple(grads))

    return value_and_gradient


class _Rebinder:
    def __init__(self, anp):
        import numpy

        from . import numpy as agc_numpy

        self.anp = anp
        self.numpy_modules = (numpy, agc_numpy)
        self.globals = {}  # id(original globals) -> rebound globals
        self.functions = {}  # id(original function) -> rebound function

    def rebind(self, value):
        if any(value is m for m in self.numpy_modules):
            return self.anp
        if isinstance(value, functools.partial):
            return functools.partial(self.rebind(value.func), *value.args, **value.keywords)
        if not isinstance(value, types.FunctionType):
            return value
        if id(value) in self.functions:
            return self.functions[id(value)]
        new_globals = self._globals(value.__globals__)
        closure = None
        if value.__closure__:
            closure = tuple(types.CellType(self._cell(c)) for c in value.__closure__)
        g = types.FunctionType(value.__code__, new_globals, value.__name__, value.__defaults__, closure)
        g.__kwdefaults__ = value.__kwdefaults__
        self.functions[id(value)] = g
        return g

    def _cell(self, cell):
        try:
            return self.rebind(cell.cell_contents)
        except ValueError:  # an empty cell
            return None

    def _globals(self, original):
        key = id(original)
        if key not in self.globals:
            new = dict(original)
            self.globals[key] = new
            for name, value in original.items():
                if isinstance(value, Variable):  # differentiated code reads the value
                    new[name] = value.value
                elif any(value is m for m in self.numpy_modules) or (
                    isinstance(value, types.FunctionType) and value.__globals__ is original
                ):
                    new[name] = self.rebind(value)
        return self.globals[key]
