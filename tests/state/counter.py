"""A variable every element of which is equal at every step: a reader that saw a step half done would see two values."""
import agc
import agc.numpy as np

level = agc.Variable(np.zeros(4096, np.float64), name="level")


@agc.export
def read():
    return level * 1.0


@agc.export
def bump(by: agc.f64[()]):
    level.assign(level + by)
    return np.sum(level)
