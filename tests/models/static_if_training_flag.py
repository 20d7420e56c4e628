"""`if` on compile-time values; stacked `@agc.export(name=..., training=...)` specialisations."""
import agc
import agc.numpy as np

USE_BIAS = True


@agc.export(name="predict_train", training=True)
@agc.export(name="predict_eval", training=False)
def predict(x: agc.f32["B", 4], w: agc.f32[4, 3], b: agc.f32[3], training=False):
    y = x @ w
    if USE_BIAS:
        y = y + b
    if training:
        y = y * 0.5          # e.g. a fixed dropout scale
    else:
        y = np.maximum(y, 0)
    return y


@agc.export(name="mode_add", mode="add")
@agc.export(name="mode_mul", mode="mul")
@agc.export(name="mode_other", mode="other")
def binary(x: agc.f32[3], y: agc.f32[3], mode="add"):
    if mode == "add":
        return x + y
    elif mode == "mul":
        return x * y
    return x - y if len(mode) > 3 else x / (np.abs(y) + 1.0)
