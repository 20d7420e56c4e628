"""`@agc.export`: marks entry points; eager calls run the function unchanged.

Each decorator records an `Export(name, static_kwargs)` in the function's
`__agc_exports__` list (in source order, top decorator first), so

    @agc.export(name="predict_train", training=True)
    @agc.export(name="predict_eval", training=False)
    def predict(x: agc.f32["B", 4], training=False): ...

exports two specialisations of one function.
"""

import functools
import inspect
from typing import NamedTuple

from ._specs import TensorSpec


class Export(NamedTuple):
    """One export of a function: its C name and the keyword arguments bound at compile time."""

    name: str
    static_kwargs: dict


def export(fn=None, /, *, name=None, **static_kwargs):
    """Mark `fn` as an entry point; `@agc.export(name=..., **static_kwargs)` names and specialises it."""
    if fn is None:
        return lambda f: _record(f, name, static_kwargs)
    if not callable(fn):
        raise TypeError(f"@agc.export takes a function, not {fn!r}; use @agc.export(name=...) to name the export")
    return _record(fn, None, {})


def _record(fn, name, static_kwargs):
    if not inspect.isfunction(fn):
        raise TypeError(f"@agc.export applies to a function defined with def, not {fn!r}")
    if name is not None and (not isinstance(name, str) or not name.isidentifier()):
        raise ValueError(f"an export name must be a C identifier, not {name!r}")
    params = inspect.signature(fn).parameters
    for key in static_kwargs:
        if key not in params or params[key].kind in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.VAR_POSITIONAL):
            raise TypeError(f"{fn.__name__}() has no keyword parameter {key!r} to bind")
    fn.__agc_exports__ = [Export(name or fn.__name__, dict(static_kwargs))] + list(getattr(fn, "__agc_exports__", []))
    return fn


class ExportedFunction:
    """One export of a module, callable eagerly with its static keyword arguments applied."""

    def __init__(self, fn, export):
        self.fn = fn
        self.name = export.name
        self.static_kwargs = export.static_kwargs
        functools.update_wrapper(self, fn)
        self.__name__ = export.name

    @property
    def params(self):
        """The staged parameters, as a list of `(name, TensorSpec)` (the static ones left out)."""
        out = []
        for p in inspect.signature(self.fn).parameters.values():
            if p.name in self.static_kwargs:
                continue
            if not isinstance(p.annotation, TensorSpec):
                raise TypeError(f"parameter {p.name!r} of export {self.name!r} is not annotated with a tensor spec")
            out.append((p.name, p.annotation))
        return out

    def __call__(self, *args, **kwargs):
        return self.fn(*args, **{**kwargs, **self.static_kwargs})

    def __repr__(self):
        return f"<agc export {self.name} of {self.fn.__module__}.{self.fn.__qualname__}>"


def exports_of(module):
    """Every export defined at the top level of `module`, in source order."""
    found = []
    for value in vars(module).values():
        if inspect.isfunction(value) and value.__module__ == module.__name__:
            for exp in getattr(value, "__agc_exports__", ()):
                found.append((value.__code__.co_firstlineno, ExportedFunction(value, exp)))
    return [e for _, e in sorted(found, key=lambda item: item[0])]
