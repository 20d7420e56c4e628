"""`import agc.numpy as np`: numpy itself, for eager mode.

The compiler accepts a numpy-compatible subset through this name; under
CPython every attribute is numpy's own.
"""

import numpy as _np
from numpy import *  # noqa: F401,F403  (re-export numpy's public names)


def __getattr__(name):
    # Everything `from numpy import *` leaves out (np.linalg, np.random, dunder-free
    # private helpers, ...) is looked up on numpy itself.
    return getattr(_np, name)


def __dir__():
    return dir(_np)
