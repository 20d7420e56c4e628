"""A staged `if` inside the differentiated function; the inputs take both branches (float32)."""
import agc
import agc.numpy as np


def branchy(x, w):
    if np.sum(x * w) > 0:
        y = np.tanh(x) * w
    else:
        y = x * x - w
    return np.sum(y ** 2)


@agc.export
def if_grad(x: agc.f32[4], w: agc.f32[4]):
    return agc.grad(branchy, argnums=(0, 1))(x, w)


def nested(x, a):
    out = x
    if a > 0:
        if np.max(x) > 1.0:
            out = x * a
        else:
            out = np.exp(x) + a
    elif np.min(x) < -1.0:
        out = x - a * a
    else:
        out = np.sin(x * a)
    return np.sum(out * np.arange(1, 4))


@agc.export
def nested_if_grad(x: agc.f32[3], a: agc.f32[()]):
    return agc.grad(nested, argnums=(0, 1))(x, a)


def early(x, t):
    if np.max(x) > t:
        return np.sum((x - t) ** 2)
    z = x * t
    return np.sum(np.tanh(z))


@agc.export
def early_return_grad(x: agc.f32[4], t: agc.f32[()]):
    return agc.grad(early, argnums=(0, 1))(x, t)


def ternary(x, flag):
    return np.sum(x ** 3 if flag else np.sin(x))


@agc.export
def conditional_expression_grad(x: agc.f32[5], flag: agc.bool_[()]):
    return agc.grad(ternary)(x, flag)


AGC_GRAD_CHECKS = {
    "if_grad": ("branchy", (0, 1)),
    "nested_if_grad": ("nested", (0, 1)),
    "early_return_grad": ("early", (0, 1)),
    "conditional_expression_grad": ("ternary", 0),
}


def agc_grad_inputs(name, rng):
    f32 = lambda a: np.asarray(a, np.float32)
    if name == "if_grad":
        x = f32(rng.standard_normal(4))
        w = f32(np.abs(rng.standard_normal(4)) * np.sign(x) + 0.01 * np.sign(x))
        return [[x, w], [x, -w]]                      # sum(x*w) > 0, then < 0
    if name == "nested_if_grad":
        return [[f32([1.5, 0.2, -0.3]), f32(0.7)],    # a > 0, max > 1
                [f32([0.5, 0.2, -0.3]), f32(0.7)],    # a > 0, max <= 1
                [f32([0.5, -1.5, -0.3]), f32(-0.7)],  # a <= 0, min < -1
                [f32([0.5, 0.2, -0.3]), f32(-0.7)]]   # a <= 0, min >= -1
    if name == "early_return_grad":
        x = f32(rng.standard_normal(4))
        return [[x, f32(np.max(x) - 0.5)], [x, f32(np.max(x) + 0.5)]]
    x = f32(rng.standard_normal(5))
    return [[x, np.bool_(True)], [x, np.bool_(False)]]
