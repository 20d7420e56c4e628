"""abs (sign as its derivative), sign and floor with zero gradient (float32); inputs away from 0."""
import agc
import agc.numpy as np


def loss(x, w):
    return np.sum(np.abs(x) * w) + np.sum(np.absolute(x - w) ** 2)


def flat_parts(x):
    # sign and floor contribute nothing to the gradient; x * sign(x) == |x|
    return np.sum(x * np.sign(x)) + np.sum(np.floor(x) * 0.5) + np.sum(np.ceil(x * 3.0))


@agc.export
def abs_grad(x: agc.f32[8], w: agc.f32[8]):
    return agc.grad(loss, argnums=(0, 1))(x, w)


@agc.export
def sign_floor_grad(x: agc.f32[2, 5]):
    return agc.grad(flat_parts)(x)


AGC_GRAD_CHECKS = {
    "abs_grad": ("loss", (0, 1)),
    "sign_floor_grad": ("flat_parts", 0),
}


def _away(rng, shape):
    # magnitudes in [0.1, 2] and fractional parts away from integers (floor/ceil jump there)
    x = rng.uniform(0.1, 2.0, shape) * rng.choice([-1.0, 1.0], shape)
    x = np.floor(x * 3) / 3 + 1 / 6
    return x.astype(np.float32)


def agc_grad_inputs(name, rng):
    if name == "abs_grad":
        x = _away(rng, 8)
        return [[x, (x + rng.choice([-0.5, 0.5], 8)).astype(np.float32)]]
    return [[_away(rng, (2, 5))]]
