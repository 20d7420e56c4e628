"""agc.grad inside a staged loop: several SGD steps in a `for` over a run-time count, and in a `while` until the loss is small (float32)."""
import agc
import agc.numpy as np


def loss(w, b, x, y):
    pred = np.tanh(x @ w + b)
    return np.mean((pred - y) ** 2)


@agc.export
def sgd_steps(w: agc.f32[3, 2], b: agc.f32[2], x: agc.f32["N", 3], y: agc.f32["N", 2], steps: agc.i64[()]):
    for _ in range(steps):
        gw, gb = agc.grad(loss, argnums=(0, 1))(w, b, x, y)
        w = w - 0.5 * gw
        b = b - 0.5 * gb
    return w, b


@agc.export
def sgd_until(w: agc.f32[3, 2], b: agc.f32[2], x: agc.f32["N", 3], y: agc.f32["N", 2], target: agc.f32[()]):
    value, (gw, gb) = agc.value_and_grad(loss, argnums=(0, 1))(w, b, x, y)
    steps = 0
    while value > target and steps < 50:
        w = w - 0.5 * gw
        b = b - 0.5 * gb
        value, (gw, gb) = agc.value_and_grad(loss, argnums=(0, 1))(w, b, x, y)
        steps = steps + 1
    return value, w, b


@agc.export
def loss_grad(w: agc.f32[3, 2], b: agc.f32[2], x: agc.f32["N", 3], y: agc.f32["N", 2]):
    return agc.grad(loss, argnums=(0, 1))(w, b, x, y)


AGC_GRAD_CHECKS = {
    "sgd_steps": None,          # several steps: checked against the eager loop only
    "sgd_until": None,
    "loss_grad": ("loss", (0, 1)),
}


def agc_grad_inputs(name, rng):
    w = (0.5 * rng.standard_normal((3, 2))).astype(np.float32)
    b = np.zeros(2, np.float32)
    x = rng.standard_normal((8, 3)).astype(np.float32)
    y = (0.8 * np.tanh(x @ rng.standard_normal((3, 2)))).astype(np.float32)
    if name == "sgd_steps":
        return [[w, b, x, y, np.int64(n)] for n in (0, 1, 10)]
    if name == "sgd_until":
        l0 = float(loss(w, b, x, y))
        return [[w, b, x, y, np.float32(t)] for t in (l0 * 2, l0 * 0.5, 0.0)]
    return [[w, b, x, y]]
