"""Gradients through numpy functions agc stages as compositions: take_along_axis (a
cross-entropy picking each row's label), log1p/expm1 in their accurate forms, hypot,
arcsinh, average with weights, diff and kron (float64)."""
import agc
import agc.numpy as np


def label_loss(logits, labels):
    z = logits - np.max(logits, axis=1, keepdims=True)
    logp = z - np.log(np.sum(np.exp(z), axis=1, keepdims=True))
    picked = np.take_along_axis(logp, labels[:, None], axis=1)
    return -np.mean(picked)


def smooth_loss(x, y):
    return (np.sum(np.log1p(x * x)) + np.sum(np.expm1(x * 0.1)) + np.sum(np.hypot(x, y))
            + np.sum(np.arcsinh(x * y)) + np.average(x, weights=y * y + 1.0))


def shape_loss(x, y):
    return np.sum(np.diff(x, axis=0) ** 2) + np.sum(np.kron(x[:2, :2], y) * 0.5)


@agc.export
def label_grad(logits: agc.f64[4, 5], labels: agc.i64[4]):
    return agc.grad(label_loss)(logits, labels)


@agc.export
def smooth_grad(x: agc.f64[3, 4], y: agc.f64[3, 4]):
    return agc.grad(smooth_loss, argnums=(0, 1))(x, y)


@agc.export
def shape_grad(x: agc.f64[3, 4], y: agc.f64[2, 2]):
    return agc.grad(shape_loss, argnums=(0, 1))(x, y)


def label_loss_autograd(logits, labels):
    # autograd has no take_along_axis: the same pick by integer indexing.
    z = logits - np.max(logits, axis=1, keepdims=True)
    logp = z - np.log(np.sum(np.exp(z), axis=1, keepdims=True))
    return -np.mean(logp[np.arange(logp.shape[0]), labels])


def smooth_loss_autograd(x, y):
    # autograd has no average: the weighted mean written out.
    w = y * y + 1.0
    return (np.sum(np.log1p(x * x)) + np.sum(np.expm1(x * 0.1)) + np.sum(np.sqrt(x * x + y * y))
            + np.sum(np.arcsinh(x * y)) + np.sum(x * w) / np.sum(w))


def label_grad_eager(logits, labels):
    return agc.grad(label_loss_autograd)(logits, labels)


def smooth_grad_eager(x, y):
    return agc.grad(smooth_loss_autograd, argnums=(0, 1))(x, y)


AGC_GRAD_CHECKS = {
    "label_grad": ("label_loss", 0, {"eager": "label_grad_eager"}),
    "smooth_grad": ("smooth_loss", (0, 1), {"eager": "smooth_grad_eager"}),
    "shape_grad": ("shape_loss", (0, 1)),
}


def agc_grad_inputs(name, rng):
    if name == "label_grad":
        return [[rng.standard_normal((4, 5)), rng.integers(0, 5, 4)]]
    if name == "smooth_grad":
        # hypot's derivative needs (x, y) away from (0, 0)
        return [[rng.standard_normal((3, 4)), rng.uniform(0.5, 2.0, (3, 4)) * rng.choice([-1.0, 1.0], (3, 4))]]
    return [[rng.standard_normal((3, 4)), rng.standard_normal((2, 2))]]
