"""Hyperparameter bools combined with `and`/`or`/`not`, and a hyperparameter ternary."""
import agc
import agc.numpy as np


@agc.export(name="plain", use_bias=False, residual=False)
@agc.export(name="bias_only", use_bias=True, residual=False)
@agc.export(name="residual_only", use_bias=False, residual=True)
@agc.export(name="bias_residual", use_bias=True, residual=True)
def block(x: agc.f32["B", 4], w: agc.f32[4, 4], b: agc.f32[4], use_bias=True, residual=True):
    y = x @ w
    if use_bias and not residual:
        y = y + b
    elif use_bias or residual:
        y = y + (b if use_bias else 0.0) + (x if residual else 0.0)
    scale = 2.0 if residual else 1.0
    if not (use_bias or residual):
        y = -y
    return y * scale
