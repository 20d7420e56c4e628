"""None as a default and as a sentinel, `is None` / `is not None` tests at compile time."""
import agc
import agc.numpy as np


def layer(x, w, b=None, activation=None):
    y = x @ w
    if b is not None:
        y = y + b
    if activation is None:
        return y
    return activation(y)


@agc.export
def optional_bias(x: agc.f32[4, 3], w: agc.f32[3, 2], b: agc.f32[2]):
    return layer(x, w), layer(x, w, b), layer(x, w, b, np.tanh)


@agc.export(name="with_mask", use_mask=True)
@agc.export(name="without_mask", use_mask=False)
def maybe_masked(x: agc.f32[5], m: agc.f32[5], use_mask=False):
    mask = m > 0 if use_mask else None
    return x if mask is None else np.where(mask, x, 0.0)
